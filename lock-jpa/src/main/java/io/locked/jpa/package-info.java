/**
 * JPA storage for Locked: {@link io.locked.jpa.JpaLockRepository} implements the lock row SPI on
 * any {@code EntityManagerFactory} whose persistence unit includes {@link io.locked.jpa.LockRow}.
 * {@link io.locked.jpa.LockFence} fences a caller's own transaction with a lock's token, so that a
 * holder that lost its lock cannot write after its successor. Schema scripts per database ship
 * under {@code META-INF/locked/}.
 */
package io.locked.jpa;
