package io.locked.api.event;

import io.locked.api.LockMode;
import java.time.Duration;

/**
 * A {@code @Locked} method's lock was acquired. A reentrant call (the thread already holds the key)
 * fires one too, with the outer acquisition's token.
 *
 * @param key         the lock key
 * @param mode        the lock mode
 * @param token       the fencing token
 * @param waited how long the acquisition took
 */
public record LockAcquired(String key, LockMode mode, long token, Duration waited) {
}
