package io.locked.api.event;

import io.locked.api.LockMode;
import java.time.Duration;

/**
 * A {@code @Locked} method's lock was released after the call, still held to the end.
 *
 * @param key       the lock key
 * @param mode      the lock mode
 * @param token     the fencing token
 * @param held      how long it was held
 */
public record LockReleased(String key, LockMode mode, long token, Duration held) {
}
