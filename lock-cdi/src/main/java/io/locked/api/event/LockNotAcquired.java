package io.locked.api.event;

import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.OnTimeout;
import java.time.Duration;

/**
 * A {@code @Locked} method did not get its lock within the wait.
 *
 * @param key      the lock key
 * @param mode     the lock mode
 * @param maxWait  the wait that ran out
 * @param outcome  whether the call threw ({@link OnTimeout#THROW}) or was skipped ({@link OnTimeout#SKIP})
 * @param reason   why: held by another, or no database connection
 */
public record LockNotAcquired(String key, LockMode mode, Duration maxWait, OnTimeout outcome,
                              LockNotAcquiredException.Reason reason) {

    /**
     * The key was held by another for the whole wait.
     *
     * @param key      the lock key
     * @param mode     the lock mode
     * @param maxWait  the wait that ran out
     * @param outcome  whether the call threw or was skipped
     */
    public LockNotAcquired(String key, LockMode mode, Duration maxWait, OnTimeout outcome) {
        this(key, mode, maxWait, outcome, LockNotAcquiredException.Reason.HELD);
    }
}
