package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A pessimistic wait on the JPA path, on a database where the provider bounds a row lock's wait in
 * whole seconds (MariaDB: {@code FOR UPDATE WAIT n}), ends with the caller's wait, not up to a second
 * after it: Hibernate 7 rounds the lock timeout hint up to whole seconds (a wait of 1.5 s lasted 2 s),
 * so Locked hands it whole seconds only and tries again without waiting for the rest.
 */
class WholeSecondRowLockWaitTest {
    private static final Duration WAIT = Duration.ofMillis(1500);
    /** Scheduling and round trips on a shared machine; well under the second a rounded-up wait adds. */
    private static final Duration SLACK = Duration.ofMillis(400);

    @Test
    @Timeout(60)
    void aPessimisticWaitOnTheJpaPathEndsWithTheCallersWait() {
        String key = "whole-seconds:" + UUID.randomUUID();
        try (Store store = TestDatabase.MARIADB.open(4, Map.of(), settings -> settings.statements(LockStatements.JPA));
             LockManager holders = LockManagerBuilder.on(store.repository()).build();
             LockManager waiters = LockManagerBuilder.on(store.repository()).build();
             LockHandle held = holders.acquire(LockRequest.of(key).mode(LockMode.PESSIMISTIC))) {
            LockRequest impatient = LockRequest.of(key).mode(LockMode.PESSIMISTIC).maxWait(WAIT);
            long start = System.nanoTime();
            assertThrows(LockNotAcquiredException.class, () -> waiters.acquire(impatient));
            Duration waited = Duration.ofNanos(System.nanoTime() - start);
            assertTrue(waited.compareTo(WAIT.plus(SLACK)) < 0, "waited " + waited + " for a wait of " + WAIT);
            assertTrue(held.isValid());
        }
    }
}
