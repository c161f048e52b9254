package io.locked.jpa;

import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockType;
import io.locked.contract.DelegatingRepository;
import io.locked.contract.RandomizedHistory;
import io.locked.jpa.testing.LockLogCapture;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRows;
import io.locked.spi.PessimisticHold;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The randomized concurrency run ({@link RandomizedHistory}) on H2, MariaDB, PostgreSQL and MySQL 8,
 * on the native path (with written tokens and with clock tokens) and the JPA path: three managers, each
 * on a pool of its own as three JVMs would be and each with a drain on close, with three threads each on
 * three exclusive keys and a read/write worker on two read/write keys (in each mode the store gives them
 * in), and an operator's manager on a fourth pool, for a few seconds ({@code -Dlocked.random.seconds=N}
 * for longer). Each run prints its seed and summary; a failed one names its seed
 * ({@code -Dlocked.random.seed=N} replays its operations) and writes its history under {@code target/},
 * and beside it the lock's own log of the run down to {@code FINE} ({@link LockLogCapture}).
 * Afterwards every pool has all its connections back. The negative controls run the same workload on a
 * store that grants without locking, one that drops minimum holds, and one that keeps reader slots it
 * was asked to release: each must be caught.
 *
 * <p>To try many seeds: {@code -Dlocked.random.runs=N} runs each database and path N times, each
 * with a seed of its own, and {@code -Dlocked.random.databases=H2,MYSQL8} keeps only those databases.
 */
@Tag(TestDatabase.SIDE_BY_SIDE)
class RandomizedConcurrencyTest {
    private static final int MANAGERS = 3;
    private static final int THREADS_PER_MANAGER = 3;
    private static final int KEYS = 3;
    // the threads, a hand-over's receiver each, and the renewals and session checks beside them
    private static final int POOL_SIZE = 10;
    /** Far longer than the drain's holders take to enter again and leave: one that waits it out has a holder that never left. */
    private static final Duration DRAIN = Duration.ofSeconds(5);
    private static final Duration LOAD = Duration.ofSeconds(Long.getLong("locked.random.seconds", 4));
    private static final Duration SESSION_CHECKS = Duration.ofSeconds(1);
    private static final int RUNS = Integer.getInteger("locked.random.runs", 1);
    /** How many runs a negative control that depends on a chance meeting may take to be caught. */
    private static final int CONTROL_RUNS = 3;
    private static final String DATABASES = System.getProperty("locked.random.databases", "H2,MARIADB,POSTGRESQL,MYSQL8");

    /** Each database's native path also with clock tokens, whose releases mostly roll their token back. */
    static Stream<Arguments> databasesAndPaths() {
        return Stream.of(TestDatabase.H2, TestDatabase.MARIADB, TestDatabase.POSTGRESQL, TestDatabase.MYSQL8)
                .filter(database -> List.of(DATABASES.split(",")).contains(database.name()))
                .flatMap(database -> Stream.of(
                        Arguments.of(database, LockStatements.NATIVE, LockTokens.WRITTEN),
                        Arguments.of(database, LockStatements.NATIVE, LockTokens.CLOCK),
                        Arguments.of(database, LockStatements.JPA, LockTokens.WRITTEN)));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("databasesAndPaths")
    void randomOperationsOfThreeManagersKeepEveryPromiseTheHistoryShows(TestDatabase database, LockStatements path,
                                                                        LockTokens tokens) throws Exception {
        String label = database + "-" + path + (tokens == LockTokens.CLOCK ? "-CLOCK" : "");
        List<String> failed = new ArrayList<>();
        for (int i = 0; i < RUNS; i++) {
            try (LockLogCapture log = LockLogCapture.start()) {
                RandomizedHistory.Outcome outcome = run(label, database, path, settings -> settings.tokens(tokens),
                        UnaryOperator.identity(), history -> history, LOAD);
                if (!outcome.kept()) {
                    Path history = RandomizedHistory.writeHistory(outcome, label);
                    Path written = log.writeTo(history.resolveSibling(history.getFileName().toString()
                            .replaceFirst("\\.txt$", "-lock-log.txt")));
                    failed.add(label + ", " + outcome.describe() + "\nthe history: " + history.toAbsolutePath()
                            + "\nthe lock's log (FINE): " + written.toAbsolutePath());
                }
            }
        }
        if (!failed.isEmpty()) {
            fail(failed.size() + " of " + RUNS + " runs failed:\n" + String.join("\n", failed));
        }
    }

    @Test
    void theSameRunOnAStoreThatGrantsWithoutLockingIsCaught() throws Exception {
        RandomizedHistory.Outcome outcome = negativeControl(GrantsWithoutLocking::new, history -> history);
        assertFalse(outcome.silent().isEmpty(), "a lock that does not lock went unnoticed: " + outcome.describe());
    }

    /**
     * The minimum hold's check: a store that frees a key at every release, its hold dropped, is caught. A
     * dropped hold shows only where another worker asks for its key before the hold would have ended, which
     * one short run leaves to chance (about one run in ten met none on this machine): up to
     * {@value #CONTROL_RUNS} runs, each with seeds of its own, and one of them must catch it.
     */
    @Test
    void theSameRunOnAStoreThatDropsMinimumHoldsIsCaught() throws Exception {
        List<String> unnoticed = new ArrayList<>();
        for (int run = 0; run < CONTROL_RUNS; run++) {
            RandomizedHistory.Outcome outcome = negativeControl(DropsMinimumHolds::new, history -> history.minimumHoldsEvery(2));
            if (outcome.problems().stream().anyMatch(problem -> problem.contains("minimum hold:"))) {
                return;
            }
            unnoticed.add(outcome.describe());
        }
        fail("a store that drops minimum holds went unnoticed in " + CONTROL_RUNS + " runs: " + unnoticed);
    }

    /** The end's check: a store that keeps the reader slots it is asked to release is caught. */
    @Test
    void theSameRunOnAStoreThatKeepsReaderSlotsIsCaught() throws Exception {
        RandomizedHistory.Outcome outcome = negativeControl(KeepsReaderSlots::new, history -> history);
        assertTrue(outcome.problems().stream().anyMatch(problem -> problem.contains("still held")),
                "reader slots left held went unnoticed: " + outcome.describe());
    }

    private static RandomizedHistory.Outcome negativeControl(UnaryOperator<LockRepository> workersStore,
                                                             UnaryOperator<RandomizedHistory> history) throws Exception {
        return run("the negative control on H2", TestDatabase.H2, LockStatements.NATIVE, UnaryOperator.identity(),
                workersStore, history, Duration.ofMillis(1500));
    }

    private static RandomizedHistory.Outcome run(String label, TestDatabase database, LockStatements path,
                                                 UnaryOperator<JpaLockRepository.Builder> settings,
                                                 UnaryOperator<LockRepository> workersStore,
                                                 UnaryOperator<RandomizedHistory> adjusted, Duration load)
            throws Exception {
        long seed = RandomizedHistory.seed();
        List<Store> stores = new ArrayList<>();
        List<LockManager> managers = new ArrayList<>();
        try {
            for (int m = 0; m <= MANAGERS; m++) {
                stores.add(database.open(POOL_SIZE, Map.of(), builder -> settings.apply(builder.statements(path))));
            }
            for (int m = 0; m < MANAGERS; m++) {
                managers.add(manager(workersStore.apply(stores.get(m).repository())));
            }
            LockManager operator = manager(stores.get(MANAGERS).repository());
            managers.add(operator);
            LockRepository workers = stores.get(0).repository();
            Set<LockMode> readWriteModes = Stream.of(LockMode.values())
                    .filter(mode -> workers.refusal(mode, LockType.READ).isEmpty()).collect(Collectors.toSet());
            RandomizedHistory history = adjusted.apply(new RandomizedHistory(seed, KEYS).readWriteIn(readWriteModes));
            if (database == TestDatabase.MYSQL8 && path == LockStatements.NATIVE) {
                history.endsSessionsAfterASeparateCheck();
            }
            // H2 too: its ABORT_SESSION can meet a release's commit under way (seen once in CI, 2026-11-29)
            if ((database == TestDatabase.POSTGRESQL || database == TestDatabase.MARIADB || database == TestDatabase.H2)
                    && path == LockStatements.NATIVE) {
                history.endsSessionsAnInstantAfterTheCheck();
            }
            RandomizedHistory.Outcome outcome = history.run(managers.subList(0, MANAGERS), THREADS_PER_MANAGER, operator, load);
            System.out.println("randomized " + label + ", seed " + seed + ": " + outcome.summary()
                    + (outcome.kept() ? "" : ", FAILED"));
            managers.forEach(LockManager::close);
            for (Store store : stores) {
                assertEquals(0, borrowedAfterReleasesEnd(store), "connections still borrowed, seed " + seed);
            }
            return outcome;
        } finally {
            managers.forEach(LockManager::close);
            stores.forEach(Store::close);
        }
    }

    private static LockManager manager(LockRepository store) {
        return LockManagerBuilder.on(store).sessionCheckEvery(SESSION_CHECKS).drainOnClose(DRAIN).build();
    }

    /** A release in flight on another thread may still hold its connection for a moment. */
    private static int borrowedAfterReleasesEnd(Store store) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (store.borrowedConnections() > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        return store.borrowedConnections();
    }

    /** A broken store: every optimistic release frees its key at once, whatever hold was asked for. */
    private static final class DropsMinimumHolds extends DelegatingRepository {
        DropsMinimumHolds(LockRepository delegate) {
            super(delegate);
        }

        @Override
        public boolean releaseLease(Lease lease, Duration holdAtLeast) {
            return delegate.releaseLease(lease);
        }
    }

    /** A broken store: the release of a reader slot's lease answers "released" and leaves the slot held. */
    private static final class KeepsReaderSlots extends DelegatingRepository {
        KeepsReaderSlots(LockRepository delegate) {
            super(delegate);
        }

        @Override
        public boolean releaseLease(Lease lease) {
            return lease.key().contains(LockRows.MARK + "r") || delegate.releaseLease(lease);
        }
    }

    /** A broken store: every acquisition locks a row of its own, so nobody ever waits for anybody. */
    private static final class GrantsWithoutLocking extends DelegatingRepository {
        GrantsWithoutLocking(LockRepository delegate) {
            super(delegate);
        }

        @Override
        public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
            return delegate.lockPessimistic(key + ":" + UUID.randomUUID(), owner, holder, dbWait);
        }

        @Override
        public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
            return delegate.takeLease(key + ":" + UUID.randomUUID(), owner, holder, lease, dbWait);
        }
    }
}
