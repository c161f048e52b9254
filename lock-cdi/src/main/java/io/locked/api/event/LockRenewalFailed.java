package io.locked.api.event;

import io.locked.api.LockMode;
import java.time.Duration;

/**
 * An early warning: a renewal of an {@link LockMode#OPTIMISTIC optimistic} lease failed (the store
 * could not be reached, or its statement timed out) while the lease still had time left. The lock is
 * still held; the watchdog tries again at its next tick, and if no renewal succeeds before
 * {@link #timeLeft()} has passed, the lease is lost and {@link LockLost} follows for a
 * {@code @Locked} method. Told once per failed renewal, never for a renewal that succeeded, and never
 * once the lease is known lost.
 *
 * <p>As a CDI event it is fired for {@code @Locked} methods, on the watchdog's thread that made the
 * renewal (not the thread running the method). The same value reaches the listeners of
 * {@link io.locked.api.LockHandle#onRenewalFailure}.
 *
 * @param key      the lock key
 * @param mode     the lock mode: always {@link LockMode#OPTIMISTIC}, the one mode with leases to renew
 * @param token    the fencing token of the acquisition whose renewal failed
 * @param timeLeft how long the lease is still counted live on this JVM, after the failure: positive
 * @param cause    the store's failure message
 */
public record LockRenewalFailed(String key, LockMode mode, long token, Duration timeLeft, String cause) {
}
