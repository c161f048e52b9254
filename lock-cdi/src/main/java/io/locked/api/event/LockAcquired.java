package io.locked.api.event;

import io.locked.api.LockMode;

/**
 * A {@code @Locked} method's lock was acquired (the outermost hold; reentrant entries fire none).
 *
 * @param key         the lock key
 * @param mode        the lock mode
 * @param token       the fencing token
 * @param waitedNanos how long the acquisition took
 */
public record LockAcquired(String key, LockMode mode, long token, long waitedNanos) {
}
