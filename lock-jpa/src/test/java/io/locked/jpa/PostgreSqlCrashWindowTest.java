package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locked.jpa.testing.TestDatabase;
import io.locked.jpa.testing.server.PrivatePostgreSql;
import io.locked.jpa.testing.server.ServerProcess;
import io.locked.spi.Lease;
import io.locked.spi.PessimisticHold;
import jakarta.persistence.EntityManagerFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The crash window of PostgreSQL's releases: a plain release of a lease does not wait for the disk
 * ({@code synchronous_commit = off}), every other write of a lease does. On a private server, a write
 * and then at once a crash (every server process killed, {@code kill -9}) and a restart: a plain
 * release is lost, so that the key comes back held by its old owner, no longer than its lease, and
 * never held twice at once; a take, a renewal (alone or in a batch), a hand-over and a release that
 * keeps a minimum hold survive.
 *
 * <p>The server's WAL writer is frozen before the writes ({@link PrivatePostgreSql#pauseWalWriter}), so
 * that a commit which did not wait for the disk is still in the server's memory at the crash, however
 * the crash falls; a commit that waits for the disk writes it out itself. The server's other ways of
 * writing the log out early (a checkpoint, the background writer, which writes the log before a
 * page) are set apart too.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgreSqlCrashWindowTest {
    /** Long enough that the lease outlives the crash and the restart, which recovers in about a second. */
    private static final Duration LEASE = Duration.ofSeconds(8);
    private static final Duration WAIT = Duration.ofSeconds(1);
    private static final Duration MINIMUM_HOLD = Duration.ofHours(1);
    private static final String HOLDER = "crash-window";
    private static final String ROW = "SELECT owner, token, CAST(EXTRACT(EPOCH FROM acquired_at) * 1000000 AS BIGINT),"
            + " CAST(EXTRACT(EPOCH FROM expires_at) * 1000000 AS BIGINT) FROM " + LockRow.TABLE + " WHERE lock_key = ?";
    private static final String LIVE = "SELECT expires_at > clock_timestamp() FROM " + LockRow.TABLE + " WHERE lock_key = ?";

    private final Path dir = Path.of("target", "postgresql-crash-servers", Long.toString(ProcessHandle.current().pid()))
            .toAbsolutePath();
    private PrivatePostgreSql server;
    private HikariDataSource pool;
    private EntityManagerFactory factory;
    private JpaLockRepository repository;

    /** A lock row as the database has it: times in microseconds on its clock. */
    private record Row(String owner, long token, long acquiredMicros, Long expiresMicros) {
    }

    @BeforeAll
    void startServer() throws Exception {
        ServerProcess.deleteTree(dir);
        Files.createDirectories(dir);
        server = PrivatePostgreSql.start(dir, Map.of(
                // the WAL writer is frozen anyway; were it not, it would come round as rarely as it can
                "wal_writer_delay", "10000ms",
                // no checkpoint writes the log out between a write and the crash
                "checkpoint_timeout", "1h",
                // nor the background writer, which writes the log out before a page it writes
                "bgwriter_lru_maxpages", "0",
                "autovacuum", "off"));
        openRepository();
    }

    @AfterAll
    void stopServer() {
        closeRepository();
        if (server != null) {
            server.close();
        }
        ServerProcess.deleteTree(dir);
    }

    @Test
    void aReleaseLostInACrashLeavesTheKeyHeldByItsOwnerNoLongerThanItsLease() throws Exception {
        String key = "crash:" + UUID.randomUUID();
        server.pauseWalWriter();
        Lease taken = repository.takeLease(key, "old-owner", HOLDER, LEASE, WAIT);
        assertNotNull(taken, "a new key is free");
        Lease renewed = repository.renewLease(taken, LEASE);
        assertNotNull(renewed, "the lease is live");
        Row held = row(key);
        assertTrue(repository.releaseLease(renewed), "the lease was live at its release");
        assertNull(row(key).owner(), "the release was applied before the crash");

        crashAndRestart();

        Row after = row(key);
        assertEquals("old-owner", after.owner(), "the release did not wait for the disk, so the crash should have"
                + " lost it: the key comes back held by its old owner");
        assertEquals(held.token(), after.token(), "the old owner's token");
        assertEquals(held.expiresMicros(), after.expiresMicros(), "the key comes back held until the lease's end"
                + " as last renewed, no later");
        assertTrue(live(key), "the restart took longer than the lease of " + LEASE + ": nothing left to see");
        Lease next = takeOnceFree(key, "new-owner");
        long takenAt = row(key).acquiredMicros();
        assertTrue(takenAt >= held.expiresMicros(), "another owner took the key at " + takenAt + " (database clock, µs),"
                + " before the old lease ended at " + held.expiresMicros() + ": two holders at once");
        assertTrue(next.token() > held.token(), "tokens rise across the crash");
        assertTrue(repository.releaseLease(next));
    }

    @Test
    void aTakeAfterAReleaseMakesTheReleaseDurableWithIt() throws Exception {
        String key = "crash:" + UUID.randomUUID();
        server.pauseWalWriter();
        Lease first = repository.takeLease(key, "first-owner", HOLDER, LEASE, WAIT);
        assertTrue(repository.releaseLease(first));
        Lease second = repository.takeLease(key, "second-owner", HOLDER, LEASE, WAIT);
        assertNotNull(second, "the key was released");

        crashAndRestart();

        Row after = row(key);
        assertEquals("second-owner", after.owner(), "the take waited for the disk, and so for the release before it");
        assertEquals(second.token(), after.token());
        assertTrue(repository.releaseLease(second));
    }

    /** The lease's writes that must survive a crash, each the last write before one. */
    enum DurableWrite {
        TAKE, RENEWAL, RENEWAL_BATCH, HAND_OVER, RELEASE_WITH_MINIMUM_HOLD
    }

    @ParameterizedTest
    @EnumSource(DurableWrite.class)
    void aWriteThatMustLastSurvivesACrashRightAfterIt(DurableWrite write) throws Exception {
        String key = "crash:" + UUID.randomUUID();
        server.pauseWalWriter();
        Lease taken = repository.takeLease(key, "owner", HOLDER, LEASE, WAIT);
        assertNotNull(taken, "a new key is free");
        Row beforeWrite = row(key);
        // a longer lease than the take's, so that a renewal shows in the row
        Duration longer = LEASE.multipliedBy(2);
        Lease last = switch (write) {
            case TAKE -> taken;
            case RENEWAL -> repository.renewLease(taken, longer);
            case RENEWAL_BATCH -> repository.renewLeases(List.of(taken), longer).get(0);
            case HAND_OVER -> repository.handOverLease(taken, "successor", HOLDER, longer);
            case RELEASE_WITH_MINIMUM_HOLD -> {
                assertTrue(repository.releaseLease(taken, MINIMUM_HOLD), "the lease was live at its release");
                yield null;
            }
        };
        Row written = row(key);
        if (write != DurableWrite.TAKE) {
            assertNotEquals(beforeWrite, written, write + " changed nothing");
        }

        crashAndRestart();

        assertEquals(written, row(key), write + " was lost in the crash");
        if (write == DurableWrite.RELEASE_WITH_MINIMUM_HOLD) {
            assertEquals(written.acquiredMicros() + MINIMUM_HOLD.toNanos() / 1000, written.expiresMicros());
            assertNull(repository.takeLease(key, "another", HOLDER, LEASE, Duration.ZERO), "the minimum hold holds");
        } else {
            assertTrue(repository.releaseLease(last));
        }
    }

    /**
     * A pessimistic holder's release that keeps a minimum hold commits the lock transaction, whose
     * token alone could be lost (it runs with {@code synchronous_commit = off}); the hold must not be.
     */
    @Test
    void aPessimisticReleaseWithAMinimumHoldSurvivesACrashRightAfterIt() throws Exception {
        String key = "crash:" + UUID.randomUUID();
        server.pauseWalWriter();
        PessimisticHold hold = repository.lockPessimistic(key, "owner", HOLDER, WAIT);
        assertNotNull(hold, "a new key is free");
        assertTrue(hold.release(MINIMUM_HOLD), "the hold was alive at its release");
        Row written = row(key);
        assertEquals(written.acquiredMicros() + MINIMUM_HOLD.toNanos() / 1000, written.expiresMicros());

        crashAndRestart();

        assertEquals(written, row(key), "the minimum hold was lost in the crash");
        assertNull(repository.takeLease(key, "another", HOLDER, LEASE, Duration.ZERO), "the minimum hold holds");
    }

    /**
     * With clock tokens a release commits its token only where the row must keep it (here the key's
     * first release in this JVM), and that commit waits for the disk, though the lock transaction's
     * own would not.
     */
    @Test
    void aClockTokenThatIsCommittedSurvivesACrashRightAfterIt() throws Exception {
        JpaLockRepository clockTokens = JpaLockRepository.builder(factory).statements(LockStatements.NATIVE)
                .tokens(LockTokens.CLOCK).build();
        String key = "crash:" + UUID.randomUUID();
        server.pauseWalWriter();
        PessimisticHold hold = clockTokens.lockPessimistic(key, "owner", HOLDER, WAIT);
        assertNotNull(hold, "a new key is free");
        assertTrue(hold.release(), "the hold was alive at its release");
        assertEquals(hold.token(), row(key).token(), "the key's first release commits its token");

        crashAndRestart();

        assertEquals(hold.token(), row(key).token(), "the committed clock token was lost in the crash");
    }

    /** Another owner's take, tried until the key is free; how long is the database's to say. */
    private Lease takeOnceFree(String key, String owner) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LEASE.toSeconds() + 30);
        while (true) {
            Lease lease = repository.takeLease(key, owner, HOLDER, LEASE, Duration.ZERO);
            if (lease != null) {
                return lease;
            }
            assertTrue(System.nanoTime() - deadline < 0, "the key was not free " + LEASE + " after its lease ended");
            Thread.sleep(20);
        }
    }

    private void crashAndRestart() throws Exception {
        server.crash();
        server.restart();
        // the pool's connections died with the server
        pool.getHikariPoolMXBean().softEvictConnections();
        // and it refills in the background: a take that may not wait would find it empty and answer
        // "unavailable" (correctly), so the tests' zero-wait takes start once it lends again
        try (Connection lent = pool.getConnection()) {
            assertTrue(lent.isValid(5), "the pool lends no working connection after the restart");
        }
    }

    private Row row(String key) throws SQLException {
        try (Connection connection = server.connect(); PreparedStatement read = connection.prepareStatement(ROW)) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                assertTrue(row.next(), "no row for " + key);
                String owner = row.getString(1);
                long token = row.getLong(2);
                long acquired = row.getLong(3);
                long expires = row.getLong(4);
                return new Row(owner, token, acquired, row.wasNull() ? null : expires);
            }
        }
    }

    /** @return whether the key's lease is live on the database's clock */
    private boolean live(String key) throws SQLException {
        try (Connection connection = server.connect(); PreparedStatement read = connection.prepareStatement(LIVE)) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                return row.next() && row.getBoolean(1);
            }
        }
    }

    private void openRepository() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(server.url());
        config.setUsername(server.user());
        config.setPassword(server.password());
        config.setMaximumPoolSize(2);
        config.setPoolName("locked-crash-window");
        config.setConnectionTimeout(10_000);
        pool = new HikariDataSource(config);
        factory = TestDatabase.POSTGRESQL.entityManagerFactory(pool);
        repository = JpaLockRepository.builder(factory).statements(LockStatements.NATIVE).build();
        repository.createTableIfMissing();
    }

    private void closeRepository() {
        if (factory != null) {
            factory.close();
        }
        if (pool != null) {
            pool.close();
        }
    }
}
