/**
 * The storage SPI: what the lock core needs from a table of lock rows. {@code lock-jpa} implements
 * it on JPA; the contract test suite in the {@code lock-cdi} test jar checks any implementation.
 *
 * <p>Every time judgement (lease start, expiry, takeover) is made by the store with the database's
 * clock. Implementations throw {@link io.locked.api.LockStoreUnavailableException} for database
 * failures and never let a persistence or JDBC exception escape.
 *
 * <p>Public and supported, for a store of a database that {@code lock-jpa} does not cover: within a
 * major version a method is added to its interfaces only with a default that keeps an existing store
 * working, and its records ({@link io.locked.spi.Lease}, {@link io.locked.spi.LockRowState}) change only in a
 * major release. The core's unit tests run on a store in another package that uses nothing but this
 * SPI and the API ({@code io.locked.testing.InMemoryLockRepository} in lock-cdi's tests).
 */
package io.locked.spi;
