package io.locked.api;

import java.time.Duration;

/** The lock was held by someone else for the whole wait. */
public class LockNotAcquiredException extends LockException {
    private static final long serialVersionUID = 1L;

    /**
     * @param key  the lock key
     * @param wait how long was waited
     */
    public LockNotAcquiredException(String key, Duration wait) {
        super(key, "Lock '" + key + "' not acquired within " + wait, null);
    }
}
