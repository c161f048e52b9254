/**
 * JPA storage for Locked: {@link io.locked.jpa.JpaLockRepository} implements the lock row SPI on
 * any {@code EntityManagerFactory} whose persistence unit includes {@link io.locked.jpa.LockRow}.
 * Schema scripts per database ship under {@code META-INF/locked/}.
 */
package io.locked.jpa;
