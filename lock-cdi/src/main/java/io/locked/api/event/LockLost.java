package io.locked.api.event;

import io.locked.api.LockMode;

/**
 * A {@code @Locked} method's lock was lost while the method ran (lease ran out or was taken over,
 * or the lock's transaction ended). The caller gets a {@link io.locked.api.LockLostException}.
 *
 * @param key    the lock key
 * @param mode   the lock mode
 * @param token  the fencing token of the lost acquisition
 * @param reason what is known
 */
public record LockLost(String key, LockMode mode, long token, String reason) {
}
