/**
 * The public, guaranteed API of Locked: {@link io.locked.api.LockManager} to take locks in code,
 * {@link io.locked.api.LockHandle} for a held lock and its fencing token, {@link io.locked.api.LockMode},
 * {@link io.locked.api.LockRequest}, and the {@link io.locked.api.LockException} hierarchy.
 *
 * <p>Guaranteed packages: {@code io.locked.api} (for users) and {@code io.locked.spi} (for storage
 * implementations). Everything under {@code io.locked.internal} may change in any release.
 */
package io.locked.api;
