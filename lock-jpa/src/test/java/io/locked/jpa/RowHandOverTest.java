package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.contract.DelegatingRepository;
import io.locked.contract.ThreadsOnOneKey;
import io.locked.jpa.testing.LockWaitsAndClock;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRowState;
import io.locked.spi.PessimisticHold;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A pessimistic hold passed to the next holder of its JVM in its transaction ({@link PessimisticHold#handOver}):
 * with clock tokens on the native path of MariaDB and PostgreSQL, one statement writes the new holder into the
 * row and draws its token, above the last; another session's inspection shows the new holder, the row stays
 * locked throughout, and after the run's transaction ends, by its last holder's release or by the end of its
 * session (as at a crash of the JVM), the next token is above every token of the run. Where a release must commit
 * (written tokens, MySQL's and H2's native paths, the JPA path) nothing is handed over, and the hold is as it was.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class RowHandOverTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    /** Threads of one manager cycling on one key, and cycles each. */
    private static final int THREADS = 8;
    private static final int CYCLES = 40;
    private final Map<String, Store> stores = new HashMap<>();

    @AfterAll
    void closeStores() {
        stores.values().forEach(Store::close);
    }

    private Store store(TestDatabase database, LockStatements path, LockTokens tokens) {
        return stores.computeIfAbsent(database + "/" + path + "/" + tokens,
                name -> database.open(4, Map.of(), settings -> settings.statements(path).tokens(tokens)));
    }

    private Store handingOver(TestDatabase database) {
        return store(database, LockStatements.NATIVE, LockTokens.CLOCK);
    }

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "POSTGRESQL"})
    void aHeldRowPassesToTheNextHolderInItsTransaction(TestDatabase database) {
        LockRepository repository = handingOver(database).repository();
        assertTrue(repository.handsOverPessimisticHolds(), database + " with clock tokens on the native path");
        String key = "hand-over:" + UUID.randomUUID();
        PessimisticHold first = repository.lockPessimistic(key, UUID.randomUUID().toString(), "first holder", WAIT);
        assertNotNull(first);

        PessimisticHold next = first.handOver(UUID.randomUUID().toString(), "next holder");

        assertNotNull(next, "the hold was not passed on");
        assertTrue(next.token() > first.token(), next.token() + " after " + first.token());
        LockRowState seen = repository.inspect(key).orElseThrow();
        assertEquals(LockMode.PESSIMISTIC, seen.mode(), "inspection of " + seen);
        assertEquals(next.token(), seen.token(), "inspection of " + seen);
        assertTrue(seen.holder().contains("next holder"), "inspection of " + seen);
        assertNull(repository.lockPessimistic(key, UUID.randomUUID().toString(), "another", Duration.ZERO),
                "the row was free after its hand-over");
        assertFalse(first.release(), "the first holder's release after the hand-over ended the next holder's transaction");
        assertNull(repository.lockPessimistic(key, UUID.randomUUID().toString(), "another", Duration.ZERO),
                "the first holder's release freed the row it had passed on");
        assertTrue(next.isAlive(WAIT), "the next holder's session");

        assertTrue(next.release(), "the release of the next holder");
        PessimisticHold after = repository.lockPessimistic(key, UUID.randomUUID().toString(), "after", WAIT);
        assertNotNull(after, "the row stayed locked after the run's last release");
        assertTrue(after.token() > next.token(), after.token() + " after " + next.token());
        assertTrue(after.release());
    }

    /**
     * A minimum hold counts from its holder's grant: after a hand-over, from the hand-over, which writes its grant
     * into the row as a lock statement does, not from the first grant of the run. The hand-over comes after a hold
     * counted from the first grant would have ended, so such a hold would leave the key free at the release.
     */
    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "POSTGRESQL"})
    void aMinimumHoldOfAHoldPassedOnCountsFromTheHandOver(TestDatabase database) throws Exception {
        Duration hold = Duration.ofSeconds(2);
        LockRepository repository = handingOver(database).repository();
        String key = "hand-over-minimum-hold:" + UUID.randomUUID();
        PessimisticHold first = repository.lockPessimistic(key, UUID.randomUUID().toString(), "first holder", WAIT);
        assertNotNull(first);
        Instant firstGrant = repository.inspect(key).orElseThrow().since();
        LockWaitsAndClock.awaitClockPast(database, firstGrant.plus(hold));
        PessimisticHold next = first.handOver(UUID.randomUUID().toString(), "next holder");
        assertNotNull(next, "the hold was not passed on");

        assertTrue(next.release(hold), "the release of the next holder");

        LockRowState kept = repository.inspect(key).orElseThrow();
        assertTrue(kept.held() && kept.until().isAfter(firstGrant.plus(hold)), "the minimum hold counted from the run's"
                + " first grant at " + firstGrant + ", not from the hand-over: " + kept);
        assertNull(repository.lockPessimistic(key, UUID.randomUUID().toString(), "another", Duration.ZERO),
                "the key was free inside the minimum hold of the holder it was passed to");
    }

    /**
     * The run's tokens are rolled back with its transaction when its session ends (the JVM crashed, or an
     * operator ended it): a store of another JVM, which knows nothing of the run, draws above all of them.
     */
    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "POSTGRESQL"})
    void aRunWhoseSessionEndsLeavesTheNextTokenAboveEveryTokenOfTheRun(TestDatabase database) throws Exception {
        Store store = handingOver(database);
        String key = "hand-over-crash:" + UUID.randomUUID();
        // a first cycle commits the key's token (a key's first release in a store does), as a running system's would
        PessimisticHold warmUp = store.repository().lockPessimistic(key, UUID.randomUUID().toString(), "warm-up", WAIT);
        assertTrue(warmUp.release());
        List<Long> tokens = new ArrayList<>();
        PessimisticHold hold = store.repository().lockPessimistic(key, UUID.randomUUID().toString(), "run 0", WAIT);
        tokens.add(hold.token());
        for (int i = 1; i <= 20; i++) {
            hold = hold.handOver(UUID.randomUUID().toString(), "run " + i);
            assertNotNull(hold, "hand-over " + i);
            assertTrue(hold.token() > tokens.get(tokens.size() - 1), "hand-over " + i + ": " + hold.token() + " after " + tokens);
            tokens.add(hold.token());
        }

        assertTrue(store.endSessionsInTransaction() >= 1, "the run's session was not found");

        assertNull(hold.handOver(UUID.randomUUID().toString(), "too late"), "a hold whose session ended was passed on");
        assertFalse(hold.release(), "the release of a hold whose session ended said it was held");
        try (Store elsewhere = database.open(2, Map.of(), settings -> settings.tokens(LockTokens.CLOCK))) {
            PessimisticHold next = elsewhere.repository().lockPessimistic(key, UUID.randomUUID().toString(), "elsewhere", WAIT);
            assertNotNull(next, "the row stayed locked after its session ended");
            assertTrue(next.token() > tokens.get(tokens.size() - 1), "the next JVM drew " + next.token() + " after the run's " + tokens);
            assertTrue(next.release());
        }
    }

    /**
     * A token drawn while the clock is behind the row's committed token (a clock stepped back: simulated by
     * moving the committed token an hour ahead) is raised and must be committed: such a hold is not passed
     * on, and its release commits it.
     */
    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "POSTGRESQL"})
    void aHoldDrawnBehindTheClockIsReleasedNotHandedOver(TestDatabase database) throws Exception {
        LockRepository repository = handingOver(database).repository();
        String key = "hand-over-behind:" + UUID.randomUUID();
        PessimisticHold warmUp = repository.lockPessimistic(key, UUID.randomUUID().toString(), "warm-up", WAIT);
        assertTrue(warmUp.release());
        long ahead = committedToken(database, key) + Duration.ofHours(1).toNanos() / 1000;
        try (Connection connection = database.connect();
             PreparedStatement write = connection.prepareStatement("UPDATE locked_lock SET token = ? WHERE lock_key = ?")) {
            write.setLong(1, ahead);
            write.setString(2, key);
            assertEquals(1, write.executeUpdate());
        }
        PessimisticHold behind = repository.lockPessimistic(key, UUID.randomUUID().toString(), "behind", WAIT);
        assertTrue(behind.token() > ahead, behind.token() + " after the committed " + ahead);

        assertNull(behind.handOver(UUID.randomUUID().toString(), "next"), "a hold drawn behind the clock was passed on");

        assertTrue(behind.release(), "the hold was not as it was after the refused hand-over");
        assertEquals(behind.token(), committedToken(database, key), "the release of a token drawn behind the clock did not commit it");
    }

    private static long committedToken(TestDatabase database, String key) throws SQLException {
        try (Connection connection = database.connect();
             PreparedStatement read = connection.prepareStatement("SELECT token FROM locked_lock WHERE lock_key = ?")) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                assertTrue(row.next(), "the row of " + key);
                return row.getLong(1);
            }
        }
    }

    static Stream<Arguments> storesWhoseReleasesCommit() {
        return Stream.of(
                Arguments.of(TestDatabase.MARIADB, LockStatements.NATIVE, LockTokens.WRITTEN),
                Arguments.of(TestDatabase.POSTGRESQL, LockStatements.NATIVE, LockTokens.WRITTEN),
                Arguments.of(TestDatabase.MARIADB, LockStatements.JPA, LockTokens.CLOCK),
                Arguments.of(TestDatabase.MYSQL8, LockStatements.NATIVE, LockTokens.CLOCK),
                Arguments.of(TestDatabase.H2, LockStatements.NATIVE, LockTokens.CLOCK));
    }

    /**
     * With written tokens a run's tokens, uncommitted, would roll back with a crash, and the next JVM could draw
     * below a paused member's; where the clock is read before the row lock (MySQL's native statements), or the
     * release commits for another reason (H2's native path), or the path has no such statement (JPA): never.
     */
    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("storesWhoseReleasesCommit")
    void whereReleasesCommitNothingIsHandedOver(TestDatabase database, LockStatements path, LockTokens tokens) {
        LockRepository repository = store(database, path, tokens).repository();
        String key = "no-hand-over:" + UUID.randomUUID();
        PessimisticHold hold = repository.lockPessimistic(key, UUID.randomUUID().toString(), "holder", WAIT);
        assertNotNull(hold);

        assertNull(hold.handOver(UUID.randomUUID().toString(), "next"), "a hold whose release commits was passed on");

        LockRowState seen = repository.inspect(key).orElseThrow();
        // the JPA path's inspection knows no uncommitted token; the holder it knows where the database shows it
        assertTrue(seen.held(), "the refused hand-over freed the row: " + seen);
        assertTrue(seen.token() == null || seen.token() == hold.token(), "the refused hand-over changed the row: " + seen);
        assertTrue(seen.holder() == null || !seen.holder().contains("next"), "the refused hand-over changed the row: " + seen);
        assertTrue(hold.release(), "the hold was not as it was after the refused hand-over");
        if (path == LockStatements.JPA || tokens == LockTokens.WRITTEN) {
            assertFalse(repository.handsOverPessimisticHolds(), database + " " + path + " " + tokens);
        }
    }

    /**
     * Threads of one JVM on one key: no overlap and tokens rising in the order the holders entered (the history
     * checker), no update lost, and fewer lock statements than holds (the row was passed on), with nothing left
     * open after.
     */
    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "POSTGRESQL"})
    void threadsOfOneJvmPassTheRowAroundWithoutOverlapAndWithRisingTokens(TestDatabase database) throws Exception {
        int statements = lockStatementsOfThreadsOnOneKey(database, LockManagerBuilder.DEFAULT_ROW_HAND_OVER_RUN);
        assertTrue(statements < THREADS * CYCLES, "every hold took the row with a statement of its own: "
                + statements + " for " + THREADS * CYCLES + " holds");
    }

    /** The same with a manager whose run bound is zero ({@code locked.hand-over.row-run=0s}): nothing is passed on. */
    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "POSTGRESQL"})
    void aManagerWhoseRunIsZeroTakesEveryHoldWithAStatement(TestDatabase database) throws Exception {
        assertEquals(THREADS * CYCLES, lockStatementsOfThreadsOnOneKey(database, Duration.ZERO), "lock statements");
    }

    /** @return how many lock statements the holds sent, once the history checker found them exclusive */
    private int lockStatementsOfThreadsOnOneKey(TestDatabase database, Duration rowRun) throws Exception {
        Store store = handingOver(database);
        AtomicInteger lockStatements = new AtomicInteger();
        LockRepository counting = new DelegatingRepository(store.repository()) {
            @Override
            public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
                lockStatements.incrementAndGet();
                return super.lockPessimistic(key, owner, holder, dbWait);
            }
        };
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try (LockManager manager = LockManagerBuilder.on(counting).handOverRowsFor(rowRun).build()) {
            ThreadsOnOneKey.assertExclusion(manager, "hand-over-threads:" + UUID.randomUUID(), LockMode.PESSIMISTIC, pool,
                    THREADS, CYCLES, Duration.ofSeconds(60), Duration.ofSeconds(90));
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0, store.borrowedConnections(), "a connection was not given back");
        assertEquals(0, store.openTransactionsOnServer(), "a transaction was left open");
        return lockStatements.get();
    }
}
