package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.jpa.internal.connection.LendingThreads;
import io.locked.jpa.testing.PlainDataSource;
import io.locked.jpa.testing.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A pool whose borrow Locked cannot bound by itself (it is not HikariCP, and says nothing of its
 * size): a drained one still gives "not acquired" within the wait, and the connections lent after
 * the caller gave up go back to the pool.
 */
class DrainedOpaquePoolTest {

    /** A pool seen only as a DataSource. */
    private static final class OpaquePool extends PlainDataSource {
        private final DataSource pool;

        OpaquePool(DataSource pool) {
            this.pool = pool;
        }

        @Override
        public Connection getConnection() throws SQLException {
            return pool.getConnection();
        }
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aDrainedPoolGivesNotAcquiredWithinTheWait(LockMode mode) throws Exception {
        TestDatabase database = TestDatabase.H2;
        String key = "jpa:opaque:" + mode + ":" + UUID.randomUUID();
        try (HikariDataSource hikari = database.pool(2)) {
            EntityManagerFactory factory = Persistence.createEntityManagerFactory(TestDatabase.UNIT, Map.of(
                    "jakarta.persistence.nonJtaDataSource", new OpaquePool(hikari),
                    "hibernate.dialect", "org.hibernate.dialect.H2Dialect"));
            JpaLockRepository repository = new JpaLockRepository(factory);
            repository.createTableIfMissing();
            LockRequest request = LockRequest.of(key).mode(mode);
            try (LockManager locks = LockManagerBuilder.on(repository).build()) {
                Connection first = hikari.getConnection();
                Connection second = hikari.getConnection();
                // the pool's own timeout is 10 s, and each wait below shorter
                assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                    // no connection: not "held", and said at once, not after the caller's wait of retries
                    for (Executable attempt : List.<Executable>of(() -> locks.tryAcquire(request),
                            () -> locks.acquire(request.maxWait(Duration.ZERO)),
                            () -> locks.acquire(request.maxWait(Duration.ofMillis(500))))) {
                        assertEquals(LockNotAcquiredException.Reason.NO_CONNECTION,
                                assertThrows(LockNotAcquiredException.class, attempt).reason());
                    }
                });
                first.close();
                second.close();
                // the borrows still under way get these two, and give them back
                assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                    while (hikari.getHikariPoolMXBean().getActiveConnections() > 0) {
                        Thread.sleep(10); // polling a condition; the hang detector bounds it
                    }
                });
                try (LockHandle held = locks.acquire(request)) {
                    assertTrue(held.isValid());
                }
            } finally {
                factory.close();
            }
            assertEquals(0, hikari.getHikariPoolMXBean().getActiveConnections(), "a connection was not given back");
        }
    }

    @Test
    void callersThatGiveUpOnADrainedPoolLeaveABoundedNumberOfThreadsInIt() throws Exception {
        TestDatabase database = TestDatabase.H2;
        try (HikariDataSource hikari = database.pool(2)) {
            EntityManagerFactory factory = Persistence.createEntityManagerFactory(TestDatabase.UNIT, Map.of(
                    "jakarta.persistence.nonJtaDataSource", new OpaquePool(hikari),
                    "hibernate.dialect", "org.hibernate.dialect.H2Dialect"));
            JpaLockRepository repository = JpaLockRepository.builder(factory).connectionWait(Duration.ofMillis(20)).build();
            repository.createTableIfMissing();
            List<Connection> drained = new ArrayList<>();
            try (LockManager locks = LockManagerBuilder.on(repository).build()) {
                drained.add(hikari.getConnection());
                drained.add(hikari.getConnection());
                // each borrow a caller gave up on waits in the pool for its own timeout (10 s), past this loop
                for (int call = 0; call < 300; call++) {
                    LockRequest request = LockRequest.of("jpa:opaque:many:" + call).mode(LockMode.values()[call % 2]);
                    assertEquals(LockNotAcquiredException.Reason.NO_CONNECTION,
                            assertThrows(LockNotAcquiredException.class, () -> locks.tryAcquire(request)).reason());
                }
                long lending = Thread.getAllStackTraces().keySet().stream()
                        .filter(thread -> thread.getName().startsWith("locked-connection-borrow-")).count();
                assertTrue(lending <= LendingThreads.MAX_THREADS, lending + " lending threads");
                // the application's own borrower gets the next connection given back, behind at most those threads
                Future<Connection> ownBorrow = Executors.newSingleThreadExecutor().submit(() -> hikari.getConnection());
                drained.remove(0).close();
                drained.add(ownBorrow.get(30, TimeUnit.SECONDS));
            } finally {
                for (Connection connection : drained) {
                    connection.close();
                }
                factory.close();
            }
            // the borrows given up on still wait in the pool, up to its timeout, and hold lending threads, of
            // which a JVM has 32 for every pool: the next test's borrows would find none. They get the
            // connections given back now, and give them back in turn
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                while (hikari.getHikariPoolMXBean().getThreadsAwaitingConnection() > 0
                        || hikari.getHikariPoolMXBean().getActiveConnections() > 0) {
                    Thread.sleep(10); // polling a condition; the hang detector bounds it
                }
            });
        }
    }
}
