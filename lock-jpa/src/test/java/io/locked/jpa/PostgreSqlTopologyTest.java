package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locked.jpa.internal.dialect.PostgreSqlTopology;
import io.locked.jpa.testing.TestDatabase;
import io.locked.jpa.testing.server.PrivatePostgreSql;
import io.locked.jpa.testing.server.ServerProcess;
import io.locked.spi.Lease;
import io.locked.spi.PessimisticHold;
import jakarta.persistence.EntityManagerFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A lock store's start on PostgreSQL with a streaming standby, both private servers (the standby a
 * {@code pg_basebackup} of the primary): on the standby it is refused, on the primary it says whether
 * the standby is synchronous, and a multi-host URL with {@code targetServerType=primary} that names
 * the standby first reaches the primary.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgreSqlTopologyTest {
    private static final Duration STREAMING_WAIT = Duration.ofSeconds(60);
    private static final String SYNC_STATES = "SELECT sync_state FROM pg_stat_replication";

    private final Path dir = Path.of("target", "postgresql-topology-servers", Long.toString(ProcessHandle.current().pid()))
            .toAbsolutePath();
    private PrivatePostgreSql primary;
    private PrivatePostgreSql standby;
    private final List<AutoCloseable> opened = new CopyOnWriteArrayList<>();

    @BeforeAll
    void startPrimaryAndStandby() throws Exception {
        ServerProcess.deleteTree(dir);
        Files.createDirectories(dir.resolve("primary"));
        primary = PrivatePostgreSql.start(dir.resolve("primary"), Map.of("autovacuum", "off"));
        // the lock table first, so that the standby has it as well
        repositoryOn(primary.url(), LockStatements.NATIVE).createTableIfMissing();
        standby = primary.startStandby(dir.resolve("standby"));
        awaitSyncStates(List.of("async"));
    }

    @AfterAll
    void stopServers() throws Exception {
        for (int each = opened.size() - 1; each >= 0; each--) {
            opened.get(each).close();
        }
        if (standby != null) {
            standby.close();
        }
        if (primary != null) {
            primary.close();
        }
        ServerProcess.deleteTree(dir);
    }

    @ParameterizedTest
    @EnumSource(value = LockStatements.class, names = {"NATIVE", "JPA"})
    void aStoreOnAStandbyIsRefusedNamingTheFix(LockStatements path) {
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> repositoryOn(standby.url(), path), "a lock store started on a read-only standby");
        String message = refused.getMessage();
        assertTrue(message.contains("standby"), message);
        assertTrue(message.contains("primary"), message);
        assertTrue(message.contains("targetServerType=primary"), message);
    }

    @Test
    void aPrimaryWithAnAsynchronousStandbySaysAFailoverMayLoseCommits() throws Exception {
        PostgreSqlTopology topology = readOn(primary);
        assertFalse(topology.inRecovery());
        assertEquals(1, topology.standbys(), topology.toString());
        assertEquals(0, topology.synchronous(), topology.toString());
        assertTrue(topology.statesVisible(), topology.toString());
        List<String> logged = startLogs(() -> repositoryOn(primary.url(), LockStatements.NATIVE));
        assertEquals(1, logged.size(), "one line per start: " + logged);
        assertTrue(logged.get(0).contains("1 asynchronous standby") && logged.get(0).contains("may lose"), logged.get(0));
        assertTrue(readOn(standby).inRecovery(), "the standby reads as one");
    }

    /** Any user counts the standbys; their state needs pg_read_all_stats, and the line says so. */
    @Test
    void aUserWithoutStatisticsRightsCountsTheStandbysButCannotTellTheirState() throws Exception {
        execute(primary, "CREATE ROLE topology_reader LOGIN");
        PostgreSqlTopology topology;
        try (Connection connection = DriverManager.getConnection(primary.url(), "topology_reader", "")) {
            topology = PostgreSqlTopology.read(connection);
        }
        assertEquals(1, topology.standbys(), topology.toString());
        assertFalse(topology.statesVisible(), topology.toString());
        assertTrue(topology.describe().contains("pg_read_all_stats"), topology.describe());
    }

    @Test
    void aPrimaryWithASynchronousStandbySaysCommitsSurviveAFailover() throws Exception {
        execute(primary, "ALTER SYSTEM SET synchronous_standby_names = '*'");
        try {
            awaitSyncStates(List.of("sync"));
            PostgreSqlTopology topology = readOn(primary);
            assertEquals(1, topology.standbys(), topology.toString());
            assertEquals(1, topology.synchronous(), topology.toString());
            List<String> logged = startLogs(() -> repositoryOn(primary.url(), LockStatements.JPA));
            assertEquals(1, logged.size(), "one line per start: " + logged);
            assertTrue(logged.get(0).contains("1 synchronous standby") && logged.get(0).contains("survive"), logged.get(0));
        } finally {
            execute(primary, "ALTER SYSTEM RESET synchronous_standby_names");
            awaitSyncStates(List.of("async"));
        }
    }

    @Test
    void aMultiHostUrlWithTargetServerTypePrimaryLocksOnThePrimary() throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:" + standby.port() + ",127.0.0.1:" + primary.port()
                + "/postgres?targetServerType=primary&connectTimeout=3";
        JpaLockRepository repository = repositoryOn(url, LockStatements.NATIVE);
        String key = "topology:" + UUID.randomUUID();
        PessimisticHold hold = repository.lockPessimistic(key, "owner", "topology", Duration.ofSeconds(1));
        assertNotNull(hold, "a new key is free");
        assertTrue(hold.release(), "the hold was alive at its release");
    }

    @Test
    void aSynchronousStandbyListNamingNoConnectedStandbyIsReportedAsAWaitForOne() throws Exception {
        execute(primary, "ALTER SYSTEM SET synchronous_standby_names = 'no_such_standby'");
        try {
            awaitSetting("synchronous_standby_names", "no_such_standby");
            List<String> logged = startLogs(() -> repositoryOn(primary.url(), LockStatements.NATIVE));
            assertEquals(1, logged.size(), "one line per start: " + logged);
            assertTrue(logged.get(0).contains("none of them named") && logged.get(0).contains("waits until"),
                    logged.get(0));
        } finally {
            execute(primary, "ALTER SYSTEM RESET synchronous_standby_names");
            awaitSetting("synchronous_standby_names", "");
        }
    }

    /**
     * With a synchronous standby whose WAL receiver is frozen, a commit that waits for it cannot return.
     * The application's commits do not wait here ({@code synchronous_commit = local} for the database);
     * with {@code locked.postgresql.synchronous-commit=on} every durable write of the lock does (takes,
     * renewals, a hand-over, minimum holds, a pessimistic token's commit, a committed clock token, a
     * forced release), and a plain release, whose loss is harmless, does not.
     */
    @Test
    void theLocksDurableWritesWaitForTheStandbyWhenAskedAndTheRestDoNot() throws Exception {
        execute(primary, "ALTER SYSTEM SET synchronous_standby_names = '*'");
        execute(primary, "ALTER DATABASE postgres SET synchronous_commit = local");
        ExecutorService writer = Executors.newSingleThreadExecutor();
        try (Connection watcher = primary.connect()) {
            awaitSyncStates(List.of("sync"));
            JpaLockRepository plain = repositoryOn(primary.url(), LockStatements.NATIVE);
            List<JpaLockRepository> started = new ArrayList<>();
            List<String> logged = startLogs(() -> started.add(repositoryOn(primary.url(), LockStatements.NATIVE,
                    StandbyCommits.ON)));
            assertTrue(logged.size() == 1 && logged.get(0).contains("synchronous_commit=local, on for the lock's durable"
                    + " writes") && logged.get(0).contains("survive"), "the start says the lock's commits wait: " + logged);
            JpaLockRepository waiting = started.get(0);
            JpaLockRepository clockTokens = JpaLockRepository.builder(factoryOn(primary.url()))
                    .statements(LockStatements.NATIVE).tokens(LockTokens.CLOCK).postgresqlSynchronousCommit(StandbyCommits.ON).build();
            String key = "standby:" + UUID.randomUUID();
            Duration lease = Duration.ofSeconds(30);
            // the key's row exists before the stream stops: its creation commits under the session's setting
            assertTrue(plain.releaseLease(plain.takeLease(key, "first", "topology", lease, Duration.ZERO)));
            standby.pauseWalReceiver();
            Lease taken = plain.takeLease(key, "plain", "topology", lease, Duration.ZERO);
            assertNotNull(taken, "without the setting a take commits as the application's do, without the standby");
            assertTrue(plain.releaseLease(taken));

            Lease mine = waitsForTheStandby(watcher, writer, "a take",
                    () -> waiting.takeLease(key, "owner", "topology", lease, Duration.ZERO));
            String second = "standby:" + UUID.randomUUID();
            Lease other = waitsForTheStandby(watcher, writer, "a take that creates the row",
                    () -> waiting.takeLease(second, "owner", "topology", lease, Duration.ZERO));
            Lease renewed = waitsForTheStandby(watcher, writer, "a renewal", () -> waiting.renewLease(mine, lease));
            List<Lease> batch = waitsForTheStandby(watcher, writer, "a batch of renewals",
                    () -> waiting.renewLeases(List.of(renewed, other), lease));
            Lease handed = waitsForTheStandby(watcher, writer, "a hand-over",
                    () -> waiting.handOverLease(batch.get(0), "successor", "topology", lease));
            assertTrue(waitsForTheStandby(watcher, writer, "a release with a minimum hold",
                    () -> waiting.releaseLease(handed, Duration.ofMillis(1))));
            assertTrue(returnsMeanwhile(writer, "a plain release", () -> waiting.releaseLease(batch.get(1))));

            PessimisticHold hold = returnsMeanwhile(writer, "a pessimistic lock, which commits nothing yet",
                    () -> waiting.lockPessimistic(second, "owner", "topology", Duration.ZERO));
            assertTrue(waitsForTheStandby(watcher, writer, "a pessimistic release, which commits its token", () -> hold.release()));
            PessimisticHold kept = returnsMeanwhile(writer, "a pessimistic lock",
                    () -> waiting.lockPessimistic(second, "owner", "topology", Duration.ZERO));
            assertTrue(waitsForTheStandby(watcher, writer, "a pessimistic release with a minimum hold",
                    () -> kept.release(Duration.ofMillis(1))));
            PessimisticHold clock = returnsMeanwhile(writer, "a pessimistic lock with clock tokens",
                    () -> clockTokens.lockPessimistic(second, "owner", "topology", Duration.ZERO));
            assertTrue(waitsForTheStandby(watcher, writer, "the key's first release with clock tokens, which commits"
                    + " its token", () -> clock.release()));

            String third = "standby:" + UUID.randomUUID();
            waitsForTheStandby(watcher, writer, "a take", () -> waiting.takeLease(third, "owner", "topology", lease,
                    Duration.ZERO));
            assertTrue(waitsForTheStandby(watcher, writer, "a forced release with a lock-delay",
                    () -> waiting.forceRelease(third, Duration.ofMillis(1)).isPresent()));
        } finally {
            writer.shutdownNow();
            standby.resumeWalReceiver();
            execute(primary, "ALTER DATABASE postgres RESET synchronous_commit");
            execute(primary, "ALTER SYSTEM RESET synchronous_standby_names");
            awaitSyncStates(List.of("async"));
        }
    }

    @Test
    void theStandbyWaitIsRefusedOnTheJpaPathAndForOtherLevels() {
        IllegalStateException jpa = assertThrows(IllegalStateException.class,
                () -> repositoryOn(primary.url(), LockStatements.JPA, StandbyCommits.REMOTE_APPLY));
        assertTrue(jpa.getMessage().contains("locked.postgresql.synchronous-commit=remote_apply")
                && jpa.getMessage().contains("native"), jpa.getMessage());
        IllegalArgumentException level = assertThrows(IllegalArgumentException.class,
                () -> StandbyCommits.parse("local"));
        assertTrue(level.getMessage().contains("remote_apply") && level.getMessage().contains("local"), level.getMessage());
        IllegalStateException otherDatabase = assertThrows(IllegalStateException.class,
                () -> TestDatabase.H2.open(2, Map.of(), settings -> settings.postgresqlSynchronousCommit(StandbyCommits.ON)).close());
        assertTrue(otherDatabase.getMessage().contains("PostgreSQL only") && otherDatabase.getMessage().contains("H2"),
                otherDatabase.getMessage());
    }

    /**
     * Runs the write while the standby's receiver is frozen: it must be seen waiting for the standby
     * ({@code SyncRep}) and not have returned, then return once the receiver goes on.
     */
    private <T> T waitsForTheStandby(Connection watcher, ExecutorService writer, String what, Callable<T> write)
            throws Exception {
        Future<T> written = writer.submit(write);
        long deadline = System.nanoTime() + STREAMING_WAIT.toNanos();
        while (waitingForStandby(watcher) == 0) {
            assertFalse(written.isDone(), () -> what + " returned without waiting for the standby: " + result(written));
            assertTrue(System.nanoTime() - deadline < 0, what + " was never seen waiting for the standby");
            TimeUnit.MILLISECONDS.sleep(10); // the poll's pace: the wait shows only in pg_stat_activity
        }
        assertFalse(written.isDone(), () -> what + " returned while its commit waited for the standby: " + result(written));
        standby.resumeWalReceiver();
        T result = written.get(STREAMING_WAIT.toSeconds(), TimeUnit.SECONDS);
        standby.pauseWalReceiver();
        return result;
    }

    /** Runs the write while the standby's receiver is frozen: it must return meanwhile. */
    private static <T> T returnsMeanwhile(ExecutorService writer, String what, Callable<T> write) throws Exception {
        Future<T> written = writer.submit(write);
        try {
            return written.get(STREAMING_WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException waited) {
            written.cancel(true);
            throw new AssertionError(what + " did not return while the standby's receiver was frozen: it waited for"
                    + " the standby", waited);
        }
    }

    private static Object result(Future<?> done) {
        try {
            return done.get();
        } catch (Exception failed) {
            return failed;
        }
    }

    private int waitingForStandby(Connection watcher) throws SQLException {
        try (Statement statement = watcher.createStatement();
             ResultSet count = statement.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'")) {
            count.next();
            return count.getInt(1);
        }
    }

    private void awaitSetting(String name, String value) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + STREAMING_WAIT.toNanos();
        while (true) {
            try (Connection connection = primary.connect(); Statement statement = connection.createStatement();
                 ResultSet row = statement.executeQuery("SELECT current_setting('" + name + "')")) {
                row.next();
                if (row.getString(1).equals(value)) {
                    return;
                }
            }
            assertTrue(System.nanoTime() - deadline < 0, name + " did not become '" + value + "' after the reload");
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    private JpaLockRepository repositoryOn(String url, LockStatements path) {
        return repositoryOn(url, path, null);
    }

    private JpaLockRepository repositoryOn(String url, LockStatements path, StandbyCommits synchronousCommit) {
        JpaLockRepository.Builder builder = JpaLockRepository.builder(factoryOn(url)).statements(path);
        return (synchronousCommit == null ? builder : builder.postgresqlSynchronousCommit(synchronousCommit)).build();
    }

    private EntityManagerFactory factoryOn(String url) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(primary.user());
        config.setPassword(primary.password());
        config.setMaximumPoolSize(2);
        config.setConnectionTimeout(10_000);
        HikariDataSource pool = new HikariDataSource(config);
        opened.add(pool);
        EntityManagerFactory factory = TestDatabase.POSTGRESQL.entityManagerFactory(pool);
        opened.add(factory::close);
        return factory;
    }

    /** @return the INFO lines about the topology that the start logged */
    private static List<String> startLogs(Runnable start) {
        Logger logger = Logger.getLogger(PostgreSqlTopology.class.getName());
        List<String> lines = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel() == Level.INFO) {
                    lines.add(record.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(capture);
        try {
            start.run();
        } finally {
            logger.removeHandler(capture);
        }
        return lines;
    }

    private static PostgreSqlTopology readOn(PrivatePostgreSql server) throws SQLException {
        try (Connection connection = server.connect()) {
            return PostgreSqlTopology.read(connection);
        }
    }

    private static void execute(PrivatePostgreSql server, String statement) throws SQLException {
        try (Connection connection = server.connect(); Statement run = connection.createStatement()) {
            run.execute(statement);
            run.execute("SELECT pg_reload_conf()");
        }
    }

    /** Waits until the primary's standbys stream in those states, as the primary reports them. */
    private void awaitSyncStates(List<String> states) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + STREAMING_WAIT.toNanos();
        List<String> seen = List.of();
        while (System.nanoTime() - deadline < 0) {
            seen = syncStates();
            if (seen.equals(states)) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        throw new AssertionError("the standby did not stream as " + states + " within " + STREAMING_WAIT + ": " + seen);
    }

    private List<String> syncStates() throws SQLException {
        try (Connection connection = primary.connect(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(SYNC_STATES)) {
            List<String> states = new ArrayList<>();
            while (rows.next()) {
                states.add(rows.getString(1));
            }
            return states;
        }
    }
}
