package io.locked.api;

/**
 * The thread was interrupted while it waited for a lock; the lock was not acquired. The thread's
 * interrupt flag is set again before this is thrown, so code further up still sees the interrupt.
 * Not a timeout: {@link OnTimeout#SKIP} does not apply to it.
 */
public class LockInterruptedException extends LockException {
    private static final long serialVersionUID = 1L;

    /**
     * @param key   the lock key
     * @param cause the interrupt, if one was caught
     */
    public LockInterruptedException(String key, InterruptedException cause) {
        super(key, "Interrupted while waiting for lock " + named(key), cause);
    }
}
