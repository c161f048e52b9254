package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.contract.CriticalSection;
import io.locked.contract.HistoryChecker;
import io.locked.contract.HistoryRecorder;
import io.locked.jpa.testing.OutsideRowLocks;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.jpa.testing.server.PrivateZonedMariaDb;
import io.locked.jpa.testing.server.ServerProcess;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.PessimisticHold;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A MariaDB server started with {@code --sysdate-is-now}, a documented option for statement-based
 * replication, reads {@code SYSDATE()} at the statement's start, before any wait for a row lock.
 * The native path draws its tokens from that clock on MariaDB, so it must find the option at
 * start-up: it then reads the token clock again after the row lock (pessimistic), lets a take not
 * wait for a row lock, and commits every token even with {@code locked.tokens=clock}. Tokens never
 * fall below a token an earlier holder used, with either token setting, on both paths.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SysdateIsNowTest {
    private static final Duration LONG = Duration.ofSeconds(30);
    private final Path serverDir = Path.of("target", "sysdate-is-now", Long.toString(ProcessHandle.current().pid()))
            .toAbsolutePath();
    private final Map<String, Store> stores = new HashMap<>();
    private PrivateZonedMariaDb server;

    @BeforeAll
    void startServer() throws Exception {
        Files.createDirectories(serverDir);
        server = PrivateZonedMariaDb.start(serverDir, "UTC", List.of("--sysdate-is-now"));
    }

    @AfterAll
    void stopServer() {
        stores.values().forEach(Store::close);
        if (server != null) {
            server.close();
        }
        ServerProcess.deleteTree(serverDir);
    }

    private Store store(LockStatements path, LockTokens tokens) {
        return stores.computeIfAbsent(path + "/" + tokens, name -> TestDatabase.MARIADB.openAt(server.url(),
                server.user(), server.password(), 4, settings -> settings.statements(path).tokens(tokens)));
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(server.url(), server.user(), server.password());
    }

    @Test
    void theOptionIsFoundAtStartUpSaidAndEveryClockTokenCommitted() throws Exception {
        List<LogRecord> warnings = new ArrayList<>();
        Logger logger = Logger.getLogger("io.locked.jpa");
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    synchronized (warnings) {
                        warnings.add(record);
                    }
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
        // a store of its own, so that its start-up is this test's
        try (Store own = TestDatabase.MARIADB.openAt(server.url(), server.user(), server.password(), 2,
                settings -> settings.statements(LockStatements.NATIVE).tokens(LockTokens.CLOCK))) {
            LockRepository repository = own.repository();
            String key = "sysdate-is-now:" + UUID.randomUUID();
            for (int i = 0; i < 5; i++) {
                PessimisticHold hold = repository.lockPessimistic(key, UUID.randomUUID().toString(), "clock", LONG);
                assertNotNull(hold, "nobody else holds " + key);
                assertTrue(hold.release());
                assertEquals(hold.token(), committedToken(key), "release " + (i + 1) + " rolled its clock token back on a"
                        + " server whose token clock is read before the row lock");
            }
        } finally {
            logger.removeHandler(capture);
        }
        synchronized (warnings) {
            assertTrue(warnings.stream().anyMatch(record -> record.getMessage().contains("--sysdate-is-now")
                            && record.getMessage().contains(LockTokens.KEY)),
                    "no warning names the option and what it does to " + LockTokens.KEY + ": " + warnings.stream()
                            .map(LogRecord::getMessage).toList());
        }
    }

    static Stream<Arguments> pathsTokensModes() {
        return Stream.of(LockStatements.NATIVE, LockStatements.JPA).flatMap(path -> Stream.of(LockTokens.values())
                .flatMap(tokens -> Stream.of(LockMode.values()).map(mode -> Arguments.of(path, tokens, mode))));
    }

    /**
     * The scene of {@code TokenAfterRolledBackHolderTest}: a raw holder row-locks the key, the library
     * tries to acquire it (its statement queues behind the row lock, or, for a take that does not
     * wait here, answers busy and is tried again), and only then does the holder draw the next token
     * as a library holder would, use it, and get rolled back. The acquisition that follows draws above.
     */
    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("pathsTokensModes")
    void anAcquisitionDrawsAboveAHolderRolledBackWhileItTried(LockStatements path, LockTokens tokens, LockMode mode)
            throws Exception {
        LockRepository repository = store(path, tokens).repository();
        String key = "sysdate-rolled-back:" + UUID.randomUUID();
        PessimisticHold first = repository.lockPessimistic(key, UUID.randomUUID().toString(), "first", LONG);
        assertNotNull(first, "a new key is free");
        first.release();

        try (Connection holder = connect()) {
            assertTrue(OutsideRowLocks.lock(holder, key), "the key has a row");
            AtomicInteger busyAnswers = new AtomicInteger();
            CompletableFuture<Long> acquirer = CompletableFuture.supplyAsync(
                    () -> acquireTrying(repository, key, mode, busyAnswers));
            awaitTrying(sessionOf(holder), acquirer, busyAnswers);
            long rolledBack = drawToken(holder, key);
            holder.rollback();

            long token = acquirer.get(60, TimeUnit.SECONDS);
            assertTrue(token > rolledBack, "the acquisition drew " + token + ", not above the token " + rolledBack
                    + " that a holder granted while it tried had used before it was rolled back");
        }
    }

    /**
     * The reproduction: four stores of two threads each on one key, holds of about a
     * millisecond, clock tokens. In the order holders entered, every token is above the one before.
     */
    @Test
    void tokensRiseInTheOrderHoldersEnteredUnderContention() throws Exception {
        String key = "sysdate-contended:" + UUID.randomUUID();
        HistoryRecorder history = new HistoryRecorder();
        int jvms = 4;
        int threadsPerStore = 2;
        int holdsPerThread = 150;
        List<LockManager> managers = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(jvms * threadsPerStore);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int s = 0; s < jvms; s++) {
                // a store of its own per manager: four JVMs
                Store own = TestDatabase.MARIADB.openAt(server.url(), server.user(), server.password(), 3,
                        settings -> settings.statements(LockStatements.NATIVE).tokens(LockTokens.CLOCK));
                stores.put("contended/" + s, own);
                LockManager manager = LockManagerBuilder.on(own.repository()).build();
                managers.add(manager);
                for (int t = 0; t < threadsPerStore; t++) {
                    String holder = "store" + s + "-thread" + t;
                    running.add(threads.submit(() -> {
                        for (int i = 0; i < holdsPerThread; i++) {
                            try (LockHandle held = manager.acquire(LockRequest.of(key).mode(LockMode.PESSIMISTIC)
                                    .maxWait(LONG))) {
                                long enter = System.nanoTime();
                                spinFor(Duration.ofMillis(1));
                                history.record(new CriticalSection(holder, held.token(), enter, System.nanoTime(),
                                        !held.isValid()));
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> thread : running) {
                thread.get(5, TimeUnit.MINUTES);
            }
        } finally {
            threads.shutdownNow();
            managers.forEach(LockManager::close);
        }
        List<CriticalSection> sections = history.sections();
        assertEquals(jvms * threadsPerStore * holdsPerThread, sections.size());
        assertEquals(List.of(), HistoryChecker.violations(sections));
    }

    private static void spinFor(Duration length) {
        long end = System.nanoTime() + length.toNanos();
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }

    /**
     * Acquires as the lock manager would: tried again while busy (a take that does not wait for a
     * row lock answers busy at once while the raw holder holds the row).
     */
    private static long acquireTrying(LockRepository repository, String key, LockMode mode, AtomicInteger busyAnswers) {
        long deadline = System.nanoTime() + LONG.toNanos();
        while (System.nanoTime() - deadline < 0) {
            String owner = UUID.randomUUID().toString();
            if (mode == LockMode.OPTIMISTIC) {
                Lease lease = repository.takeLease(key, owner, "acquirer", LONG, LONG);
                if (lease != null) {
                    repository.releaseLease(lease);
                    return lease.token();
                }
            } else {
                PessimisticHold hold = repository.lockPessimistic(key, owner, "acquirer", LONG);
                if (hold != null) {
                    hold.release();
                    return hold.token();
                }
            }
            busyAnswers.incrementAndGet();
        }
        throw new AssertionError("never acquired " + key + " within " + LONG);
    }

    private static long sessionOf(Connection connection) throws SQLException {
        try (PreparedStatement read = connection.prepareStatement("SELECT CONNECTION_ID()");
             ResultSet row = read.executeQuery()) {
            row.next();
            return row.getLong(1);
        }
    }

    /** Until the acquirer's statement queues behind the holder's row lock, or the acquirer was answered busy. */
    private void awaitTrying(long holderSession, CompletableFuture<?> acquirer, AtomicInteger busyAnswers)
            throws SQLException, InterruptedException {
        String waits = "SELECT COUNT(*) FROM information_schema.innodb_lock_waits w"
                + " JOIN information_schema.innodb_trx b ON b.trx_id = w.blocking_trx_id WHERE b.trx_mysql_thread_id = ?";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        try (Connection observer = connect(); PreparedStatement read = observer.prepareStatement(waits)) {
            read.setLong(1, holderSession);
            while (busyAnswers.get() == 0) {
                try (ResultSet count = read.executeQuery()) {
                    count.next();
                    if (count.getInt(1) > 0) {
                        return;
                    }
                }
                assertFalse(acquirer.isDone(), () -> "the acquirer ended while the row was locked: " + acquirer);
                assertTrue(System.nanoTime() < deadline, "the acquirer was never seen trying for the row");
                // InnoDB refreshes its lock tables only when nobody read them for 100 ms
                Thread.sleep(150);
            }
        }
    }

    /** The next token as a holder granted now would draw it, from the clock a statement reads at its start. */
    private static long drawToken(Connection holder, String key) throws SQLException {
        try (PreparedStatement draw = holder.prepareStatement("UPDATE locked_lock SET token = GREATEST(token + 1,"
                + " TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))) WHERE lock_key = ?")) {
            draw.setString(1, key);
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

    private long committedToken(String key) throws SQLException {
        try (Connection connection = connect();
             PreparedStatement read = connection.prepareStatement("SELECT token FROM locked_lock WHERE lock_key = ?")) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                assertTrue(row.next(), "the key has a row");
                return row.getLong(1);
            }
        }
    }
}
