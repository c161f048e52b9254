package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockMode;
import io.locked.jpa.testing.OutsideRowLocks;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.PessimisticHold;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A holder granted after a waiter started waiting draws its token, uses it, and is rolled back (its
 * connection died): the token write is undone. The waiter, granted next, must still draw a higher
 * token, so its token must come from a clock read after its wait, not from when its statement began.
 *
 * <p>The holder is a raw connection that row-locks the key, waits until the library's statement is
 * seen queueing behind it (a condition read from the database, not a pause), then writes the next
 * token as a library holder would, and rolls back.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TokenAfterRolledBackHolderTest {
    private static final Duration LONG = Duration.ofSeconds(30);
    private final Map<String, Store> stores = new HashMap<>();

    // the servers whose sessions and lock waits the test can observe, on both paths
    static Stream<Arguments> databasesAndModes() {
        return Stream.of(TestDatabase.H2, TestDatabase.MARIADB, TestDatabase.POSTGRESQL)
                .flatMap(database -> Stream.of(LockStatements.NATIVE, LockStatements.JPA)
                        .flatMap(path -> Stream.of(LockMode.values()).map(mode -> Arguments.of(database, path, mode))));
    }

    @AfterAll
    void closeStores() {
        stores.values().forEach(Store::close);
    }

    private Store store(TestDatabase database, LockStatements path) {
        // a MariaDB session off UTC, so that a token read from the session's local clock shows
        return stores.computeIfAbsent(database + "/" + path, d -> database.open(2, database == TestDatabase.MARIADB
                ? Map.of("sessionVariables", "time_zone='-05:00'") : Map.of(), settings -> settings.statements(path)));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("databasesAndModes")
    void waiterDrawsATokenAboveAHolderThatWasRolledBack(TestDatabase database, LockStatements path, LockMode mode)
            throws Exception {
        LockRepository repository = store(database, path).repository();
        String key = "rolled-back-holder:" + UUID.randomUUID();
        PessimisticHold first = repository.lockPessimistic(key, UUID.randomUUID().toString(), "first", LONG);
        assertNotNull(first, "a new key is free");
        first.release();

        try (Connection holder = database.connect()) {
            assertTrue(OutsideRowLocks.lock(holder, key), "the key has a row");
            CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> acquire(repository, key, mode));
            awaitWaiterBehind(database, sessionOf(database, holder), waiter);
            long rolledBack = drawToken(database, holder, key);
            holder.rollback();

            long token = waiter.get(60, TimeUnit.SECONDS);
            assertTrue(token > rolledBack, "the waiter drew " + token + ", not above the token " + rolledBack
                    + " that a holder granted during its wait had used before it was rolled back");
        }
    }

    private static long acquire(LockRepository repository, String key, LockMode mode) {
        String owner = UUID.randomUUID().toString();
        if (mode == LockMode.OPTIMISTIC) {
            Lease lease = repository.takeLease(key, owner, "waiter", LONG, LONG);
            assertNotNull(lease, "the take should have waited for the row");
            repository.releaseLease(lease);
            return lease.token();
        }
        PessimisticHold hold = repository.lockPessimistic(key, owner, "waiter", LONG);
        assertNotNull(hold, "the lock should have waited for the row");
        hold.release();
        return hold.token();
    }

    private static long sessionOf(TestDatabase database, Connection connection) throws SQLException {
        String sql = switch (database) {
            case MARIADB -> "SELECT CONNECTION_ID()";
            case POSTGRESQL -> "SELECT pg_backend_pid()";
            case H2 -> "SELECT SESSION_ID()";
            case MYSQL8, DERBY, HSQLDB -> throw new IllegalArgumentException(database + " is not observed here");
        };
        try (PreparedStatement read = connection.prepareStatement(sql); ResultSet row = read.executeQuery()) {
            row.next();
            return row.getLong(1);
        }
    }

    private static void awaitWaiterBehind(TestDatabase database, long holderSession, CompletableFuture<?> waiter)
            throws SQLException, InterruptedException {
        String sql = switch (database) {
            case MARIADB -> "SELECT COUNT(*) FROM information_schema.innodb_lock_waits w"
                    + " JOIN information_schema.innodb_trx b ON b.trx_id = w.blocking_trx_id WHERE b.trx_mysql_thread_id = ?";
            case POSTGRESQL -> "SELECT COUNT(*) FROM pg_stat_activity WHERE CAST(? AS INTEGER) = ANY(pg_blocking_pids(pid))";
            case H2 -> "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID = ?";
            case MYSQL8, DERBY, HSQLDB -> throw new IllegalArgumentException(database + " is not observed here");
        };
        // InnoDB refreshes its lock tables only when nobody read them for 100 ms: a tighter poll would
        // keep reading the same stale snapshot
        long pollMillis = database == TestDatabase.MARIADB ? 150 : 5;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        try (Connection observer = database.connect(); PreparedStatement waits = observer.prepareStatement(sql)) {
            waits.setLong(1, holderSession);
            while (true) {
                try (ResultSet count = waits.executeQuery()) {
                    count.next();
                    if (count.getInt(1) > 0) {
                        return;
                    }
                }
                assertFalse(waiter.isDone(), () -> "the waiter ended without waiting: " + waiter);
                assertTrue(System.nanoTime() < deadline, "the waiter was never seen waiting for the row");
                Thread.sleep(pollMillis);
            }
        }
    }

    /** The next token as a holder granted now would draw it: GREATEST(token + 1, now in microseconds). */
    private static long drawToken(TestDatabase database, Connection holder, String key) throws SQLException {
        String now = switch (database) {
            case MARIADB -> "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))";
            case POSTGRESQL -> "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)";
            // H2's clock stands still for a transaction; the embedded database's clock is this JVM's
            case H2 -> "?";
            case MYSQL8, DERBY, HSQLDB -> throw new IllegalArgumentException(database + " is not observed here");
        };
        try (PreparedStatement draw = holder.prepareStatement(
                "UPDATE locked_lock SET token = GREATEST(token + 1, " + now + ") WHERE lock_key = ?")) {
            int parameter = 1;
            if (database == TestDatabase.H2) {
                draw.setLong(parameter++, ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now()));
            }
            draw.setString(parameter, key);
            draw.executeUpdate();
        }
        try (PreparedStatement read = holder.prepareStatement("SELECT token FROM locked_lock WHERE lock_key = ?")) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }
}
