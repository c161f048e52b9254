/**
 * The lock core: waiting and backoff, reentrancy, lease renewal. Plain Java against the
 * {@link io.locked.spi} SPI, with no CDI, JPA or MicroProfile import. Not API: may change in any release.
 */
package io.locked.internal;
