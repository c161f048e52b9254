package io.locked.jpa.internal.dialect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.jpa.testing.PostgreSqlSchema;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * PostgreSQL's {@code lock_timeout} bounds every lock wait of a statement, not only the wait for a
 * row: also the server's own brief ones, for a table's extension by concurrent inserts or a vacuum's
 * truncation. Under load those last a few milliseconds, and a wait of zero used to give them 1 ms:
 * a key nobody held was answered "busy" (seen in CI, on keys of each thread's own).
 *
 * <p>Here another session holds a table lock that the lock statements must wait for, as they wait
 * for an extension, while an acquisition with a wait of zero runs on a free key: it must wait for
 * that lock and take the key, in both modes, on an existing row and on a missing one. The table
 * lives in a schema of this test's own, so that no other test waits on it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgreSqlServerLockWaitTest {
    private static final String SCHEMA = "locked_server_lock_wait";
    private static final long PATIENCE_NANOS = TimeUnit.SECONDS.toNanos(30);
    private PostgreSqlSchema schema;
    private Store store;

    @BeforeAll
    void schemaOfItsOwn() throws SQLException {
        schema = PostgreSqlSchema.create(SCHEMA, 2);
        store = schema.store();
    }

    @AfterAll
    void dropSchema() throws SQLException {
        if (schema != null) {
            schema.close();
        }
    }

    @ParameterizedTest(name = "{0}, row existing: {1}")
    @CsvSource({"OPTIMISTIC, true", "OPTIMISTIC, false", "PESSIMISTIC, true", "PESSIMISTIC, false"})
    void aWaitOfZeroOnAFreeKeyWaitsOutTheServersOwnLockWaits(LockMode mode, boolean rowExists) throws Exception {
        String key = "server-lock-wait:" + mode + ":" + UUID.randomUUID();
        ExecutorService acquirer = Executors.newSingleThreadExecutor();
        try (LockManager locks = LockManagerBuilder.on(store.repository()).build()) {
            if (rowExists) {
                locks.acquire(LockRequest.of(key).mode(mode)).close();
            }
            Future<Boolean> acquired;
            try (Connection other = TestDatabase.POSTGRESQL.connect(); Statement sql = other.createStatement()) {
                other.setAutoCommit(false);
                // EXCLUSIVE lets readers through and stops every row lock and write, as an extension stops inserts
                sql.execute("LOCK TABLE " + SCHEMA + ".locked_lock IN EXCLUSIVE MODE");
                acquired = acquirer.submit(() -> {
                    Optional<LockHandle> handle = locks.tryAcquire(LockRequest.of(key).mode(mode).maxWait(Duration.ZERO));
                    handle.ifPresent(LockHandle::close);
                    return handle.isPresent();
                });
                awaitWaiterOrAnswer(sql, acquired);
                assertTrue(!acquired.isDone() || acquired.get(),
                        "a wait of zero answered busy for a free key while the server made it wait for a table lock");
                other.commit();
            }
            assertTrue(acquired.get(30, TimeUnit.SECONDS), "the free key was taken once the table lock ended");
            assertEquals(0, store.borrowedConnections(), "connections still borrowed");
        } finally {
            acquirer.shutdownNow();
        }
    }

    /** Returns once the acquisition waits for the table lock, or has answered without waiting for it. */
    private static void awaitWaiterOrAnswer(Statement sql, Future<Boolean> acquired) throws Exception {
        long deadline = System.nanoTime() + PATIENCE_NANOS;
        while (!acquired.isDone() && !waitsForTheTable(sql)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("within 30 s the acquisition neither answered nor waited for the table lock");
            }
            Thread.sleep(5); // polling the server's lock table
        }
    }

    private static boolean waitsForTheTable(Statement sql) throws SQLException {
        try (ResultSet waiting = sql.executeQuery("SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = '"
                + SCHEMA + ".locked_lock'::regclass")) {
            return waiting.next() && waiting.getInt(1) > 0;
        }
    }
}
