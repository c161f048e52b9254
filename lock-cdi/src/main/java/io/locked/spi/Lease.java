package io.locked.spi;

/**
 * An optimistic lease as last confirmed by the store.
 *
 * @param key     the lock key
 * @param owner   the acquisition's id
 * @param token   the fencing token drawn when the lease was taken
 * @param version the row's version after the last write by this owner, as far as this owner knows;
 *                for diagnostics: renewal, hand-over and release are guarded by owner and token
 */
public record Lease(String key, String owner, long token, long version) {
}
