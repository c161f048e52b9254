/**
 * The storage SPI: what the lock core needs from a table of lock rows. {@code lock-jpa} implements
 * it on JPA; the contract test suite in the {@code lock-cdi} test jar checks any implementation.
 *
 * <p>Every time judgement (lease start, expiry, takeover) is made by the store with the database's
 * clock. Implementations throw {@link io.locked.api.LockStoreUnavailableException} for database
 * failures and never let a persistence or JDBC exception escape.
 */
package io.locked.spi;
