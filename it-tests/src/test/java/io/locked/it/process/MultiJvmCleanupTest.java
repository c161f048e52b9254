package io.locked.it.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.it.server.MariaDbEndpoint;
import io.locked.it.server.PrivateMariaDb;
import io.locked.jpa.JpaLockRepository;
import io.locked.jpa.testing.TestDatabase;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import jakarta.persistence.EntityManagerFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two JVMs run the scheduled cleanup at once, on a MariaDB server of the test's own (on the shared
 * one, other builds' cleanups and contract tests delete idle rows too, and no JVM here could be
 * shown to have done the work), configured by MicroProfile Config: one
 * does every round's work while the other skips, idle rows are deleted, a row held by a third party
 * (this JVM) survives though it was acquired long ago, and a key whose row was deleted gets a higher
 * token next time.
 */
class MultiJvmCleanupTest {
    private static final Duration PATIENCE = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    /** What one cleanup worker printed. */
    private static final class Rounds {
        final List<String> lines = new ArrayList<>();

        synchronized void add(String line) {
            lines.add(line);
        }

        synchronized boolean printed(String prefix) {
            return lines.stream().anyMatch(line -> line.startsWith(prefix));
        }

        synchronized long count(String prefix) {
            return lines.stream().filter(line -> line.startsWith(prefix)).count();
        }

        synchronized long deleted() {
            return lines.stream().filter(line -> line.startsWith("CLEANUP ran "))
                    .mapToLong(line -> Long.parseLong(line.substring("CLEANUP ran ".length()))).sum();
        }

        @Override
        public synchronized String toString() {
            return lines.toString();
        }
    }

    @Test
    void oneJvmDoesTheWorkHeldRowsSurviveAndTokensKeepIncreasing() throws Exception {
        String run = UUID.randomUUID().toString();
        String idle = "it:cleanup:idle:" + run;
        String otherIdle = "it:cleanup:idle2:" + run;
        String held = "it:cleanup:held:" + run;
        try (PrivateMariaDb server = PrivateMariaDb.start(Files.createDirectories(dir.resolve("server")));
             HikariDataSource pool = pool(server.endpoint());
             EntityManagerFactory factory = TestDatabase.MARIADB.entityManagerFactory(pool)) {
            JpaLockRepository repository = new JpaLockRepository(factory);
            repository.createTableIfMissing();
            run(server.endpoint(), pool, LockManagerBuilder.on(repository).build(), idle, otherIdle, held);
        }
    }

    private void run(MariaDbEndpoint database, HikariDataSource store, LockManager locks, String idle, String otherIdle,
                     String held) throws Exception {
        try (locks) {
            long idleToken;
            try (LockHandle lock = locks.acquire(LockRequest.of(idle).mode(LockMode.OPTIMISTIC))) {
                idleToken = lock.token();
            }
            locks.acquire(LockRequest.of(otherIdle)).close();
            LockHandle heldLock = locks.acquire(LockRequest.of(held).mode(LockMode.OPTIMISTIC).lease(Duration.ofMinutes(5)));
            // idle for two hours as far as the cleanup can tell; the held row too, so that only its
            // live lease protects it
            backdateAcquisitions(store, idle, otherIdle, held);

            Rounds first = new Rounds();
            Rounds second = new Rounds();
            try (WorkerProcess one = startCleanup(database, "one", first);
                 WorkerProcess two = startCleanup(database, "two", second)) {
                awaitCondition(() -> !rowExists(store, idle) && !rowExists(store, otherIdle), "the idle rows were not deleted",
                        first, second);
                // enough rounds that the JVM without the lock has tried and skipped a few times
                awaitCondition(() -> first.count("CLEANUP ") >= 3 && second.count("CLEANUP ") >= 3,
                        "both JVMs did not go through three rounds", first, second);

                assertTrue(rowExists(store, held), "the held row was deleted");
                assertTrue(heldLock.isValid(), "the held lock was lost");
                boolean firstWorked = first.printed("CLEANUP ran ");
                Rounds worker = firstWorked ? first : second;
                Rounds skipper = firstWorked ? second : first;
                assertFalse(skipper.printed("CLEANUP ran "), "both JVMs ran the cleanup: " + first + " " + second);
                assertTrue(skipper.printed("CLEANUP skipped"), "the JVM without the cleanup's lock did not skip: " + skipper);
                assertEquals(2, worker.deleted(), "the working JVM did not delete the two idle rows: " + worker);

                one.send("stop");
                two.send("stop");
                assertEquals(0, one.waitForExit(60), "worker one failed: " + one.logTail());
                assertEquals(0, two.waitForExit(60), "worker two failed: " + two.logTail());
            }

            heldLock.close();
            try (LockHandle again = locks.acquire(LockRequest.of(idle).mode(LockMode.OPTIMISTIC))) {
                assertTrue(again.token() > idleToken, "the token went backwards after the cleanup: " + again.token()
                        + " after " + idleToken);
            }
        }
    }

    private WorkerProcess startCleanup(MariaDbEndpoint database, String name, Rounds rounds) throws Exception {
        return WorkerProcess.start(dir.resolve(name + ".log"), database.workerEnvironment(), rounds::add,
                "cleanup", TestDatabase.MARIADB.name(), "300ms", "1m");
    }

    private static HikariDataSource pool(MariaDbEndpoint database) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.url());
        config.setUsername(database.user());
        config.setPassword(database.password());
        config.setMaximumPoolSize(4);
        config.setPoolName("locked-cleanup-test");
        return new HikariDataSource(config);
    }

    private static boolean rowExists(HikariDataSource store, String key) {
        try (Connection connection = store.getConnection();
             PreparedStatement statement = connection.prepareStatement("SELECT 1 FROM locked_lock WHERE lock_key = ?")) {
            statement.setString(1, key);
            try (ResultSet result = statement.executeQuery()) {
                return result.next();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void backdateAcquisitions(HikariDataSource store, String... keys) throws SQLException {
        try (Connection connection = store.getConnection();
             PreparedStatement update = connection.prepareStatement(
                     "UPDATE locked_lock SET acquired_at = acquired_at - INTERVAL 2 HOUR WHERE lock_key = ?")) {
            for (String key : keys) {
                update.setString(1, key);
                assertEquals(1, update.executeUpdate(), "no row for " + key);
            }
        }
    }

    private static void awaitCondition(BooleanSupplier condition, String failure, Rounds first, Rounds second)
            throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("within " + PATIENCE + ", " + failure + "; the workers printed " + first + " and " + second);
            }
            Thread.sleep(50);
        }
    }
}
