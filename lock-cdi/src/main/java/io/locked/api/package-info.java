/**
 * The public, guaranteed API of Locked: {@link io.locked.api.LockManager} to take locks in code,
 * {@link io.locked.api.LockHandle} for a held lock and its fencing token, {@link io.locked.api.LockMode},
 * {@link io.locked.api.LockRequest}, and the {@link io.locked.api.LockException} hierarchy.
 *
 * <p>Compatible within a major version: {@code io.locked.api} (for applications) and {@code io.locked.spi}
 * (for stores, which may gain methods with defaults in a minor release). The interfaces here are
 * implemented by Locked and may gain methods; the values an application builds are final classes
 * with withers. Everything under {@code io.locked.internal} may change in any release. The rules are
 * in docs/design.md.
 */
package io.locked.api;
