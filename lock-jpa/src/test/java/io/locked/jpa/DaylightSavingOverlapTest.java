package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockMode;
import io.locked.jpa.testing.InnoDbTransactions;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.jpa.testing.TestPool;
import io.locked.jpa.testing.TestProvider;
import io.locked.jpa.testing.server.PrivateMySql;
import io.locked.jpa.testing.server.PrivateZonedMariaDb;
import io.locked.jpa.testing.server.ServerProcess;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.PessimisticHold;
import jakarta.persistence.EntityManagerFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The lock across a daylight-saving clock change, on servers whose system zone is Europe/Berlin. At
 * 2025-10-26 01:00 UTC Berlin's clocks went back from 03:00 to 02:00, so the local hour from 02:00
 * is read twice, from 00:00 to 02:00 UTC; a clock read as local time and turned back into an instant
 * ({@code UNIX_TIMESTAMP(SYSDATE(6))}) jumps an hour ahead when that hour first begins and steps back
 * at 01:00 UTC. The lock's clock must not: a lease taken just before 00:00 UTC still holds just
 * after it, and tokens keep rising when the clock steps back, where a token drawn an hour ahead was
 * lost (a pessimistic holder rolled back, a released row deleted by a cleanup).
 *
 * <p>Each store's sessions are pinned to an instant with {@code SET timestamp}, which the servers,
 * started with {@code --sysdate-is-now}, apply to {@code SYSDATE()} as well: two stores at two
 * instants are two JVMs meeting across the change.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DaylightSavingOverlapTest {
    private static final String ZONE = "Europe/Berlin";
    private static final Instant BEFORE_OVERLAP = Instant.parse("2025-10-25T23:59:50Z");
    private static final Instant IN_OVERLAP = Instant.parse("2025-10-26T00:00:05Z");
    private static final Instant BEFORE_STEP_BACK = Instant.parse("2025-10-26T00:59:55Z");
    private static final Instant AFTER_STEP_BACK = Instant.parse("2025-10-26T01:00:05Z");
    private static final Duration LEASE = Duration.ofSeconds(30);
    /** Time enough to borrow a connection; a pessimistic holder's row lock makes it wait this long. */
    private static final Duration WAIT = Duration.ofSeconds(1);
    private static final List<String> SERVER_OPTIONS = List.of("--sysdate-is-now", "--default-time-zone=SYSTEM");

    private final Path serversDir = Path.of("target", "dst-servers", Long.toString(ProcessHandle.current().pid()))
            .toAbsolutePath();
    private final Map<TestDatabase, Server> servers = new HashMap<>();
    /** Why a server did not start: the next test is told the same, rather than waiting for a second start. */
    private final Map<TestDatabase, RuntimeException> notStarted = new HashMap<>();
    private final Map<String, Store> stores = new HashMap<>();
    private final List<Holding> holdings = new ArrayList<>();

    /** A server of this class: where it is reached, and the process to stop. */
    private record Server(String url, String user, String password, ServerProcess process) {
        Connection connect() throws SQLException {
            return DriverManager.getConnection(url, user, password);
        }
    }

    /** The lock's paths on the MySQL family: native statements, and the JPA path on each provider. */
    enum LockPath {
        NATIVE(LockStatements.NATIVE, TestProvider.HIBERNATE),
        JPA_HIBERNATE(LockStatements.JPA, TestProvider.HIBERNATE),
        JPA_ECLIPSELINK(LockStatements.JPA, TestProvider.ECLIPSELINK);

        final LockStatements statements;
        final TestProvider provider;

        LockPath(LockStatements statements, TestProvider provider) {
            this.statements = statements;
            this.provider = provider;
        }
    }

    // EclipseLink does not read MySQL 8.0.15's VARBINARY key back as written (8.0.17+ has a text key that would do)
    static Stream<Arguments> serversPathsModes() {
        return Stream.of(TestDatabase.MARIADB, TestDatabase.MYSQL8).flatMap(database -> Stream.of(LockPath.values())
                .filter(path -> database == TestDatabase.MARIADB || path != LockPath.JPA_ECLIPSELINK)
                .flatMap(path -> Stream.of(LockMode.values()).map(mode -> Arguments.of(database, path, mode))));
    }

    @AfterEach
    void releaseWhatAFailedTestHolds() {
        holdings.forEach(Holding::release);
        holdings.clear();
    }

    @AfterAll
    void stopServers() {
        stores.values().forEach(Store::close);
        servers.values().forEach(server -> server.process().close());
        ServerProcess.deleteTree(serversDir);
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("serversPathsModes")
    void oneHolderAndRisingTokensAcrossTheClockChange(TestDatabase database, LockPath path, LockMode mode)
            throws Exception {
        Store first = store(database, path, "first");
        Store second = store(database, path, "second");
        String key = "dst:" + UUID.randomUUID();

        pin(first, BEFORE_OVERLAP);
        pin(second, IN_OVERLAP);
        Holding held = acquire(first, key, mode);
        assertNotNull(held, "a new key is free");
        assertNull(acquire(second, key, mode), "at " + IN_OVERLAP + " a second holder got the key that "
                + "the first took at " + BEFORE_OVERLAP + " for " + LEASE + ": the clock read an hour ahead");
        assertTrue(held.release(), "the first holder's lock was still valid");
        Holding next = acquire(second, key, mode);
        assertNotNull(next, "the key was released");
        assertTrue(next.token() > held.token(), "token " + next.token() + " at " + IN_OVERLAP
                + " is not above " + held.token() + " at " + BEFORE_OVERLAP);
        assertTrue(next.release());

        pin(first, BEFORE_STEP_BACK);
        pin(second, AFTER_STEP_BACK);
        Holding lost = acquire(first, key, mode);
        assertNotNull(lost, "the key was released");
        forget(database, first, second, key, lost, mode);
        Holding after = acquire(second, key, mode);
        assertNotNull(after, "the key is free");
        assertTrue(after.token() > lost.token(), "token " + after.token() + " at " + AFTER_STEP_BACK
                + " is not above " + lost.token() + ", drawn at " + BEFORE_STEP_BACK + " and lost: the clock stepped back");
        assertTrue(after.release());
    }

    /** An acquisition in either mode: its token, and its release. */
    private record Holding(long token, LockRepository repository, Lease lease, PessimisticHold hold) {
        boolean release() {
            return lease != null ? repository.releaseLease(lease) : hold.release();
        }
    }

    private Holding acquire(Store store, String key, LockMode mode) {
        LockRepository repository = store.repository();
        String owner = UUID.randomUUID().toString();
        Holding holding;
        if (mode == LockMode.OPTIMISTIC) {
            Lease lease = repository.takeLease(key, owner, "dst", LEASE, WAIT);
            holding = lease == null ? null : new Holding(lease.token(), repository, lease, null);
        } else {
            PessimisticHold hold = repository.lockPessimistic(key, owner, "dst", WAIT);
            holding = hold == null ? null : new Holding(hold.token(), repository, null, hold);
        }
        if (holding != null) {
            holdings.add(holding);
        }
        return holding;
    }

    /**
     * Loses the holding's token: a pessimistic holder's session ends before its commit, so that its
     * token write is rolled back; a lease is released and its row deleted by a cleanup of the second
     * store, idle for a second.
     */
    private void forget(TestDatabase database, Store first, Store second, String key, Holding holding, LockMode mode)
            throws SQLException {
        if (mode == LockMode.PESSIMISTIC) {
            assertEquals(1, endSessionsInTransaction(servers.get(database)), "the holder's session");
            assertFalse(holding.release(), "the holder's transaction was ended");
            first.pool().evictIdle();
            return;
        }
        assertTrue(holding.release());
        second.repository().deleteIdleRows(Duration.ofSeconds(1));
        assertFalse(second.rowExists(key), "a cleanup at " + AFTER_STEP_BACK + " keeps the row of a lease released at "
                + BEFORE_STEP_BACK + " as not idle for a second: it was written an hour ahead");
    }

    private static int endSessionsInTransaction(Server server) throws SQLException {
        try (Connection connection = server.connect()) {
            // the engine's own list: information_schema.innodb_trx is a copy that may predate the hold
            return InnoDbTransactions.endActiveSessions(connection, server.user()).size();
        }
    }

    /**
     * Pins every session of the store's pool to the instant: both connections are borrowed at once,
     * so each is pinned, whichever the lock borrows next.
     */
    private static void pin(Store store, Instant instant) throws SQLException {
        String seconds = instant.getEpochSecond() + "." + String.format("%06d", instant.getNano() / 1000);
        try (Connection one = store.pool().dataSource().getConnection();
             Connection other = store.pool().dataSource().getConnection()) {
            for (Connection connection : List.of(one, other)) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("SET timestamp = " + seconds);
                }
            }
        }
    }

    private Store store(TestDatabase database, LockPath path, String name) throws SQLException {
        Server server = server(database);
        return stores.computeIfAbsent(database + "/" + path + "/" + name, ignored -> {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(server.url());
            config.setUsername(server.user());
            config.setPassword(server.password());
            config.setMaximumPoolSize(2);
            config.setPoolName("dst-" + name);
            config.setConnectionTimeout(10_000);
            HikariDataSource pool = new HikariDataSource(config);
            EntityManagerFactory factory = database.entityManagerFactory(pool, path.provider.unit(database), path.provider);
            JpaLockRepository repository = JpaLockRepository.builder(factory).statements(path.statements).build();
            repository.createTableIfMissing();
            return new Store(database, TestPool.of(pool), factory, repository);
        });
    }

    /** The class's server of that family, started in Berlin's zone at first use and checked to read local time so. */
    private Server server(TestDatabase database) throws SQLException {
        Server server = servers.get(database);
        if (notStarted.containsKey(database)) {
            throw notStarted.get(database);
        }
        if (server == null) {
            try {
                server = start(database);
            } catch (RuntimeException failure) {
                notStarted.put(database, failure);
                throw failure;
            }
            servers.put(database, server);
            assertEquals(3600, localClockAhead(server, IN_OVERLAP),
                    "the server's local clock should read an hour ahead in the overlap: " + database);
        }
        return server;
    }

    private Server start(TestDatabase database) {
        Path dir = serversDir.resolve(database.name().toLowerCase());
        try {
            Files.createDirectories(dir);
            if (database == TestDatabase.MARIADB) {
                PrivateZonedMariaDb mariaDb = PrivateZonedMariaDb.start(dir, ZONE, SERVER_OPTIONS);
                return new Server(mariaDb.url(), mariaDb.user(), mariaDb.password(), mariaDb);
            }
            PrivateMySql mySql = PrivateMySql.start(dir, Map.of("TZ", ZONE), SERVER_OPTIONS);
            return new Server(mySql.url(), mySql.user(), mySql.password(), mySql);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start a " + database + " server under " + dir, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** @return how far ahead of the pinned instant the server's local clock, read back as an instant, is */
    private static long localClockAhead(Server server, Instant instant) throws SQLException {
        try (Connection connection = server.connect(); Statement statement = connection.createStatement()) {
            statement.execute("SET timestamp = " + instant.getEpochSecond());
            try (ResultSet ahead = statement.executeQuery("SELECT UNIX_TIMESTAMP(SYSDATE(6)) - @@timestamp")) {
                ahead.next();
                return ahead.getLong(1);
            }
        }
    }
}
