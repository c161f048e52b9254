package io.locked.it.process;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockInfo;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.jpa.LockStatements;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * kill -9 of the JVM holding a lock: no release runs. The pessimistic lock is freed by the database
 * when the connection drops; the optimistic lease expires. Either way the next holder gets the key
 * with a higher token. With a lock-delay, the killed holder's key stays taken for the delay past its
 * lease, judged on the database's clock.
 */
class CrashTakeoverTest {
    private static final long LEASE_MILLIS = 2000;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource({"MARIADB, PESSIMISTIC, AUTO", "MARIADB, OPTIMISTIC, AUTO", "POSTGRESQL, PESSIMISTIC, AUTO",
            "POSTGRESQL, OPTIMISTIC, AUTO", "MYSQL8, PESSIMISTIC, AUTO", "MYSQL8, OPTIMISTIC, AUTO",
            "MARIADB, PESSIMISTIC, JPA", "MARIADB, OPTIMISTIC, JPA"})
    void nextHolderTakesOverAfterKill(TestDatabase database, LockMode mode, LockStatements statements) throws Exception {
        String key = "it:crash:" + mode + ":" + UUID.randomUUID();
        LockRequest request = LockRequest.of(key).mode(mode).lease(Duration.ofMillis(LEASE_MILLIS));
        try (Store store = database.open(4, Map.of(), settings -> settings.statements(statements));
             LockManager locks = LockManagerBuilder.on(store.repository()).build();
             WorkerProcess holder = WorkerProcess.start(dir.resolve("holder.log"), database.workerEnvironment(), "hold",
                     database.name(), mode.name(), key, String.valueOf(LEASE_MILLIS), statements.name())) {
            String held = holder.awaitLine("HELD ", 120);
            assertNotNull(held, "holder process died before taking the lock, see " + dir);
            long crashedToken = Long.parseLong(held.substring("HELD ".length()));
            assertFalse(locks.tryAcquire(request).isPresent(), "the lock was not held by the other process");

            holder.kill();

            long killedAt = System.nanoTime();
            try (LockHandle next = locks.acquire(request.maxWait(Duration.ofSeconds(60)))) {
                long tookMillis = (System.nanoTime() - killedAt) / 1_000_000;
                System.out.printf("crash %s %s %s: took over %d ms after kill -9 (lease %d ms), token %d > %d%n",
                        database, statements, mode, tookMillis, LEASE_MILLIS, next.token(), crashedToken);
                assertTrue(next.token() > crashedToken, "token after takeover must be higher");
                assertTrue(next.isValid());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"MARIADB", "POSTGRESQL"})
    void aLockDelayKeepsAKilledHoldersKeyTakenPastItsLease(TestDatabase database) throws Exception {
        String key = "it:crash:delay:" + UUID.randomUUID();
        long delayMillis = 2000;
        LockRequest request = LockRequest.of(key).mode(LockMode.OPTIMISTIC).lease(Duration.ofMillis(LEASE_MILLIS));
        try (Store store = database.open(4, Map.of(), settings -> settings.statements(LockStatements.AUTO));
             LockManager locks = LockManagerBuilder.on(store.repository()).build();
             WorkerProcess holder = WorkerProcess.start(dir.resolve("holder.log"), database.workerEnvironment(), "hold",
                     database.name(), LockMode.OPTIMISTIC.name(), key, String.valueOf(LEASE_MILLIS),
                     LockStatements.AUTO.name(), String.valueOf(delayMillis))) {
            String held = holder.awaitLine("HELD ", 120);
            assertNotNull(held, "holder process died before taking the lock, see " + dir);
            long killedToken = Long.parseLong(held.substring("HELD ".length()));

            holder.kill();

            // the row as the killed holder's last renewal left it: it changes no more
            LockInfo left = locks.inspect(key);
            assertTrue(left.held() && left.token().orElseThrow() == killedToken, "the killed holder's lease: " + left);
            Instant leftUntil = left.until().orElseThrow();
            Instant leaseEnd = leftUntil.minusMillis(delayMillis);
            assertFalse(leaseEnd.isBefore(left.since().orElseThrow().plusMillis(LEASE_MILLIS)), "the store keeps lease plus delay: " + left);
            try (LockHandle next = locks.acquire(request.maxWait(Duration.ofSeconds(60)))) {
                Instant entered = Instant.EPOCH.plusNanos(next.token() * 1000); // drawn from the database's clock
                System.out.printf("crash %s OPTIMISTIC with a lock-delay of %d ms: the lease ended at %s, the next holder"
                        + " entered %d ms after it%n", database, delayMillis, leaseEnd, Duration.between(leaseEnd, entered).toMillis());
                assertFalse(entered.isBefore(leftUntil.minusMillis(1)), "the next holder entered at " + entered
                        + ", before the lock-delay's end at " + leftUntil);
            }
        }
    }
}
