package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.LockStoreUnavailableException;
import io.locked.contract.InspectionContract;
import io.locked.contract.ThreadsOnOneKey;
import io.locked.jpa.internal.dialect.HolderSession;
import io.locked.jpa.testing.TestDatabase;
import io.locked.jpa.testing.server.PrivatePgBouncer;
import io.locked.jpa.testing.server.PrivatePostgreSql;
import io.locked.jpa.testing.server.ServerProcess;
import io.locked.spi.LockRepository;
import jakarta.persistence.EntityManagerFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The lock behind PgBouncer (private ones, in front of a private PostgreSQL server),
 * in session and in transaction pooling: the contract's exclusion (the history checker over threads
 * of one JVM, on the native and the JPA path) and its lost session (a pessimistic holder whose
 * server session is ended learns it, on the native path, whose holders publish their token). And that nothing the lock sets on a session reaches another client through a
 * transaction-pooled bouncer with one server connection.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgBouncerTest {
    /** What a pgJDBC URL through a transaction-pooled PgBouncer needs: docs/clusters.md. */
    static final String TRANSACTION_POOLING_URL = "prepareThreshold=0";
    private static final Duration LONG_WAIT = Duration.ofSeconds(30);
    private static final String DATABASE = "postgres";

    enum Pooling {
        SESSION, TRANSACTION
    }

    private final Path dir = Path.of("target", "pgbouncer", Long.toString(ProcessHandle.current().pid())).toAbsolutePath();
    private final List<AutoCloseable> opened = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private PrivatePostgreSql postgres;
    private PrivatePgBouncer session;
    private PrivatePgBouncer transaction;

    @BeforeAll
    void startBouncers() throws Exception {
        ServerProcess.deleteTree(dir);
        // a server of its own: the contract suites of other runs on the shared server end every
        // session of their user that is idle in a transaction, as a pessimistic holder's is
        postgres = PrivatePostgreSql.start(dir.resolve("postgresql"), Map.of("autovacuum", "off"));
        opened.add(postgres);
        // a session pool holds a server connection per client connection; a transaction pool shares
        // fewer server connections than the lock's pool has clients
        session = bouncer("session", "session", 20);
        transaction = bouncer("transaction", "transaction", 3);
        repositoryThrough(session, "", 1).createTableIfMissing();
    }

    private PrivatePgBouncer bouncer(String name, String poolMode, int serverConnections) throws Exception {
        PrivatePgBouncer bouncer = PrivatePgBouncer.start(dir.resolve(name), "127.0.0.1", postgres.port(), DATABASE,
                postgres.user(), poolMode, serverConnections);
        opened.add(bouncer);
        return bouncer;
    }

    @AfterAll
    void stop() throws Exception {
        threads.shutdownNow();
        for (int each = opened.size() - 1; each >= 0; each--) {
            opened.get(each).close();
        }
        ServerProcess.deleteTree(dir);
    }

    private PrivatePgBouncer bouncer(Pooling pooling) {
        return pooling == Pooling.SESSION ? session : transaction;
    }

    private static String urlParameters(Pooling pooling) {
        return pooling == Pooling.TRANSACTION ? TRANSACTION_POOLING_URL : "";
    }

    /** A native-path store through the bouncer, on a Hikari pool of its own. */
    private JpaLockRepository repositoryThrough(PrivatePgBouncer bouncer, String urlParameters, int poolSize) {
        return repositoryThrough(bouncer, urlParameters, poolSize, LockStatements.NATIVE);
    }

    private JpaLockRepository repositoryThrough(PrivatePgBouncer bouncer, String urlParameters, int poolSize,
                                                LockStatements path) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(bouncer.url(urlParameters));
        config.setUsername(postgres.user());
        config.setPassword(postgres.password());
        config.setMaximumPoolSize(poolSize);
        config.setConnectionTimeout(10_000);
        HikariDataSource pool = new HikariDataSource(config);
        opened.add(pool);
        EntityManagerFactory factory = TestDatabase.POSTGRESQL.entityManagerFactory(pool);
        opened.add(factory::close);
        return JpaLockRepository.builder(factory).statements(path).build();
    }

    private LockManager manager(JpaLockRepository repository, Duration sessionCheck) {
        LockManager manager = LockManagerBuilder.on(repository).sessionCheckEvery(sessionCheck).build();
        opened.add(manager);
        return manager;
    }

    /**
     * pgJDBC's statements prepared on the server (after 5 uses, by default) would run on other
     * clients' server sessions: without prepareThreshold=0 a store behind transaction pooling is
     * refused at start-up, naming the fix. (Let through, pessimistic holders lost their locks to
     * "bind message supplies 1 parameters, but prepared statement "S_2" requires 0", and 12
     * statements prepared by the lock stayed on the shared server session.)
     */
    @ParameterizedTest
    @EnumSource(value = LockStatements.class, names = {"NATIVE", "JPA"})
    void transactionPoolingWithStatementsPreparedOnTheServerIsRefusedNamingTheFix(LockStatements path) {
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> repositoryThrough(transaction, "", 2, path), "a store behind transaction pooling without prepareThreshold=0");
        String message = refused.getMessage();
        assertTrue(message.contains("transaction pooling") && message.contains("prepareThreshold=0"), message);
    }

    /**
     * As the contract's threadsOfOneJvmNeverOverlap, on the native and the JPA path: the history
     * checker finds no overlap, no update is lost.
     */
    @ParameterizedTest
    @CsvSource({"SESSION, NATIVE", "TRANSACTION, NATIVE", "SESSION, JPA", "TRANSACTION, JPA"})
    @Timeout(120)
    void threadsNeverOverlapInEitherMode(Pooling pooling, LockStatements path) throws Exception {
        LockManager locks = manager(repositoryThrough(bouncer(pooling), urlParameters(pooling), 6, path),
                Duration.ofSeconds(1));
        for (LockMode mode : LockMode.values()) {
            assertExclusion(locks, "pgbouncer:exclusion:" + pooling + ":" + path + ":" + mode + ":" + UUID.randomUUID(), mode);
        }
    }

    /**
     * Statement pooling lends a server connection per statement and refuses transactions: a lease's
     * statements work (each is one statement, or its settings and it in one round trip), a
     * pessimistic acquisition fails as "store unavailable" with PgBouncer's reason.
     */
    @Test
    @Timeout(60)
    void statementPoolingKeepsLeasesAndRefusesPessimisticLocksWithItsReason() throws Exception {
        PrivatePgBouncer statement = bouncer("statement", "statement", 3);
        LockManager locks = manager(repositoryThrough(statement, TRANSACTION_POOLING_URL, 6), Duration.ofSeconds(1));
        assertExclusion(locks, "pgbouncer:statement:" + UUID.randomUUID(), LockMode.OPTIMISTIC);
        LockRequest pessimistic = LockRequest.of("pgbouncer:statement:" + UUID.randomUUID()).maxWait(Duration.ofSeconds(1));
        LockStoreUnavailableException refused = assertThrows(LockStoreUnavailableException.class,
                () -> locks.acquire(pessimistic));
        assertTrue(refused.getMessage().contains("transaction blocks not allowed in statement pooling mode"),
                refused.getMessage());
    }

    /** Threads of one JVM on one key: the history checker finds no overlap, no update is lost. */
    private void assertExclusion(LockManager locks, String key, LockMode mode) throws Exception {
        ThreadsOnOneKey.assertExclusion(locks, key, mode, threads, 5, 12, LONG_WAIT, Duration.ofSeconds(100));
    }

    /**
     * As the contract's aPessimisticHolderLearnsThatItsSessionEnded: the holder's server session is
     * ended (found by the token it publishes), the holder learns it, and the key is free again.
     */
    @ParameterizedTest
    @EnumSource(Pooling.class)
    @Timeout(60)
    void aPessimisticHolderLearnsThatItsSessionEnded(Pooling pooling) throws Exception {
        LockManager locks = manager(repositoryThrough(bouncer(pooling), urlParameters(pooling), 4), Duration.ofMillis(100));
        String key = "pgbouncer:session:" + pooling + ":" + UUID.randomUUID();
        LockHandle held = locks.acquire(LockRequest.of(key));
        try (Connection direct = postgres.connect();
             PreparedStatement end = direct.prepareStatement("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                     + " WHERE application_name LIKE ?")) {
            end.setString(1, "locked " + held.token() + " %");
            try (ResultSet ended = end.executeQuery()) {
                assertTrue(ended.next() && ended.getBoolean(1), "no server session published token " + held.token());
            }
        }
        while (held.isValid()) {
            Thread.sleep(20); // polling a condition; @Timeout bounds it
        }
        LockLostException lost = assertThrows(LockLostException.class, held::close);
        assertTrue(lost.getMessage().contains("session ended"), lost.getMessage());
        try (LockHandle next = threads.submit(() -> locks.acquire(LockRequest.of(key).maxWait(LONG_WAIT)))
                .get(LONG_WAIT.toSeconds() + 5, TimeUnit.SECONDS)) {
            assertTrue(next.isValid());
            assertTrue(next.token() > held.token());
        }
    }

    /**
     * Through a transaction-pooled bouncer with one server connection, every client shares that
     * connection: after the lock's statements of every kind ran on it, that server session no longer
     * shows a holder's published application_name, and another client sees its own, the server's
     * settings, and no prepared statement left there.
     */
    @Test
    @Timeout(60)
    void nothingTheLockSetsReachesAnotherClientThroughTransactionPooling() throws Exception {
        PrivatePgBouncer single = bouncer("single", "transaction", 1);
        String settings = "SELECT current_setting('application_name'), current_setting('lock_timeout'),"
                + " current_setting('synchronous_commit'), current_setting('statement_timeout'),"
                + " (SELECT count(*) FROM pg_prepared_statements), pg_backend_pid()";
        List<String> before = read(single, settings);
        LockManager locks = manager(repositoryThrough(single, TRANSACTION_POOLING_URL, 2), Duration.ofMillis(100));
        String key = "pgbouncer:leak:" + UUID.randomUUID();
        for (int round = 0; round < 6; round++) { // past pgJDBC's prepareThreshold of 5
            for (LockMode mode : LockMode.values()) {
                try (LockHandle held = locks.acquire(LockRequest.of(key).mode(mode).maxWait(LONG_WAIT))) {
                    assertTrue(held.isValid());
                }
                Optional<LockHandle> now = locks.tryAcquire(LockRequest.of(key).mode(mode));
                assertTrue(now.isPresent(), mode + ": a free key was refused");
                now.get().close();
            }
        }
        // PgBouncer itself sets a client's application_name on the server session it lends (a
        // parameter it tracks), so the server's own view tells whether the lock's publication outlived
        // its transaction there
        try (Connection direct = postgres.connect();
             PreparedStatement name = direct.prepareStatement("SELECT application_name FROM pg_stat_activity WHERE pid = ?")) {
            name.setInt(1, Integer.parseInt(before.get(5)));
            try (ResultSet row = name.executeQuery()) {
                assertTrue(row.next(), "the bouncer's server session is gone");
                assertFalse(row.getString(1).startsWith(HolderSession.PUBLISHED), row.getString(1));
            }
        }
        List<String> after = read(single, settings);
        assertEquals(before.get(5), after.get(5), "not the one server connection: " + before + " " + after);
        assertEquals(List.of("plain client", before.get(1), before.get(2), before.get(3), "0"), after.subList(0, 5));
    }

    /**
     * The contract's inspection and forced release through transaction pooling: a pessimistic
     * holder's backend, found through the row's xmax, is the one its open transaction keeps.
     */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class InspectionThroughTransactionPooling implements InspectionContract {
        private JpaLockRepository store;

        @Override
        public LockRepository inspectedStore() {
            if (store == null) {
                store = repositoryThrough(transaction, TRANSACTION_POOLING_URL, 6);
            }
            return store;
        }
    }

    /** @return the columns of the query's one row, read by a plain client through the bouncer */
    private List<String> read(PrivatePgBouncer bouncer, String query) throws SQLException {
        try (Connection plain = DriverManager.getConnection(bouncer.url("ApplicationName=plain%20client"),
                postgres.user(), postgres.password());
             Statement statement = plain.createStatement();
             ResultSet row = statement.executeQuery(query)) {
            assertTrue(row.next());
            List<String> columns = new ArrayList<>();
            for (int column = 1; column <= row.getMetaData().getColumnCount(); column++) {
                columns.add(row.getString(column));
            }
            return columns;
        }
    }
}
