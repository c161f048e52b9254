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
import java.util.concurrent.CopyOnWriteArrayList;
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

    private JpaLockRepository repositoryOn(String url, LockStatements path) {
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
        return JpaLockRepository.builder(factory).statements(path).build();
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
