package io.locked.api;

import io.locked.internal.definition.Durations;
import java.time.Duration;

/**
 * The lock was not acquired: another holder had it for the whole wait ({@link Reason#HELD}), or
 * the store had no database connection to ask with ({@link Reason#NO_CONNECTION}). Tell them apart
 * with {@link #reason()}: the first is the lock doing its job, the second a pool too small for the
 * load, which nobody else's hold explains.
 */
public class LockNotAcquiredException extends LockException {
    private static final long serialVersionUID = 1L;
    private final Reason reason;

    /** Why a lock was not acquired. */
    public enum Reason {
        /** Another holder, in this JVM or another, had the key for the whole wait. */
        HELD,
        /**
         * The store found no free connection in its pool within the connection wait
         * ({@code locked.connection-wait}), or every connection it may take for pessimistic locks
         * was taken: whether the key was free is not known. Waiting longer would not have helped
         * with the key; a larger pool, or fewer locks at once, would.
         */
        NO_CONNECTION
    }

    /**
     * The key was held by another for the whole wait.
     *
     * @param key  the lock key
     * @param wait how long was waited
     */
    public LockNotAcquiredException(String key, Duration wait) {
        this(key, wait, Reason.HELD, null);
    }

    /**
     * @param key    the lock key
     * @param wait   how long was waited
     * @param reason why the lock was not acquired, not null
     * @param detail what the store said (the pool and its state), or null
     */
    public LockNotAcquiredException(String key, Duration wait, Reason reason, String detail) {
        super(key, message(key, wait, reason, detail), null);
        this.reason = reason;
    }

    private static String message(String key, Duration wait, Reason reason, String detail) {
        if (reason == Reason.NO_CONNECTION) {
            return "Lock '" + key + "' not acquired within " + Durations.text(wait) + ": no database connection"
                    + (detail == null ? "" : " (" + detail + ")");
        }
        // the wait as users write it in config and annotations (10s, 250ms), not as Duration prints it (PT10S)
        return "Lock '" + key + "' not acquired within " + Durations.text(wait);
    }

    /** @return why the lock was not acquired */
    public Reason reason() {
        return reason;
    }
}
