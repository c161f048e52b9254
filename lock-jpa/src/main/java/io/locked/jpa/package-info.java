/**
 * JPA storage for Locked, its public API: {@link io.locked.jpa.JpaLockRepository} (and its builder)
 * implements the lock row SPI on any {@code EntityManagerFactory} whose persistence unit includes
 * {@link io.locked.jpa.LockRow}; {@link io.locked.jpa.LockDatabase} and
 * {@link io.locked.jpa.LockStatements} name the database and the path; {@link io.locked.jpa.LockFence}
 * fences a caller's own transaction with a lock's token, so that a holder that lost its lock cannot
 * write after its successor. {@code io.locked.jpa.cdi} (the lock store producer),
 * {@code io.locked.jpa.web} (the listener that creates the store as a web application starts) and
 * {@code io.locked.jpa.mapping} (the converters of the mapping files) are API too; everything under
 * {@code io.locked.jpa.internal} is not, and may change in any release. Schema scripts per database
 * ship under {@code META-INF/locked/}.
 */
package io.locked.jpa;
