package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.internal.DefaultLockManager;
import io.locked.internal.base.LockMetrics;
import io.locked.internal.exclusive.ModelHolds;
import io.locked.jpa.testing.CountingDataSource;
import io.locked.jpa.testing.LockWaitsAndClock;
import io.locked.jpa.testing.OutsideRowLocks;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.Lease;
import io.locked.spi.PessimisticHold;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What one lock cycle (acquire, then release, on a key whose row exists) sends to the database:
 * statements, and commits, rollbacks and autocommit switches, counted under the pool, so that the
 * pool's own resets count too. The speed of a cycle is mostly its round trips (docs/performance.md,
 * "Statements per cycle"): a change that adds one shows here, not only as a slower benchmark.
 */
class StatementsPerCycleTest {
    private static final int CYCLES = 20;
    /** How long the warm-up's holders may take to be in at once: generous, a first use on a loaded machine. */
    private static final Duration WARM_UP_PATIENCE = Duration.ofSeconds(60);

    /** database, path, mode, statements per cycle, transaction calls per cycle. */
    static Stream<Arguments> cycles() {
        return Stream.of(
                // the lock statement, which starts the transaction (an anonymous compound statement), COMMIT
                Arguments.of(TestDatabase.MARIADB, LockStatements.NATIVE, LockMode.PESSIMISTIC, 2, 0),
                Arguments.of(TestDatabase.MARIADB, LockStatements.NATIVE, LockMode.OPTIMISTIC, 2, 0),
                // START TRANSACTION, the lock statement, COMMIT
                Arguments.of(TestDatabase.MYSQL8, LockStatements.NATIVE, LockMode.PESSIMISTIC, 3, 0),
                Arguments.of(TestDatabase.MYSQL8, LockStatements.NATIVE, LockMode.OPTIMISTIC, 2, 0),
                // the driver sends the transaction's start with its first statement: the switches cost nothing
                Arguments.of(TestDatabase.POSTGRESQL, LockStatements.NATIVE, LockMode.PESSIMISTIC, 1, 3),
                // the take and the release each send their settings first, in the same round trip (the
                // release's: synchronous_commit off); a statement with its settings counts once
                Arguments.of(TestDatabase.POSTGRESQL, LockStatements.NATIVE, LockMode.OPTIMISTIC, 2, 0),
                // embedded: no round trips, and each statement that may wait reads the session's lock timeout first
                Arguments.of(TestDatabase.H2, LockStatements.NATIVE, LockMode.PESSIMISTIC, 4, 3),
                Arguments.of(TestDatabase.H2, LockStatements.NATIVE, LockMode.OPTIMISTIC, 5, 0));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cycles")
    void aCycleOnAnExistingRowSendsWhatItAlwaysSent(TestDatabase database, LockStatements path, LockMode mode,
                                                     int statements, int transactionCalls) throws Exception {
        LockRequest request = LockRequest.of("cycle:" + UUID.randomUUID()).mode(mode).maxWait(Duration.ZERO);
        assertCounts(database, path, mode + "", statements, transactionCalls, (locks, others) -> {
            for (int i = 0; i < 3; i++) {
                cycle(locks, request); // creates the row, warms the pool
            }
        }, locks -> cycle(locks, request));
    }

    /**
     * database, mode, wait, then per cycle on Hibernate 6 and on 7: statements, transaction calls. The
     * JPA path as its provider sends it, so that a Hibernate version that adds round trips shows here.
     * Pessimistic: the row-locked read, the clock, the token's flush; optimistic: the take (one
     * row-locked read among its statements) and the release. A zero wait is {@code NOWAIT} in the query
     * on both versions.
     */
    static Stream<Arguments> jpaCycles() {
        Duration none = Duration.ZERO;
        Duration some = Duration.ofSeconds(5);
        return Stream.of(
                // Hibernate 7 bounds a wait on PostgreSQL's connection: it reads lock_timeout, sets it
                // (set local) and sets it back around each row-locked read, three statements more
                Arguments.of(TestDatabase.POSTGRESQL, LockMode.PESSIMISTIC, none, 3, 3, 3, 3),
                Arguments.of(TestDatabase.POSTGRESQL, LockMode.PESSIMISTIC, some, 3, 3, 6, 3),
                Arguments.of(TestDatabase.POSTGRESQL, LockMode.OPTIMISTIC, none, 5, 6, 5, 6),
                Arguments.of(TestDatabase.POSTGRESQL, LockMode.OPTIMISTIC, some, 5, 6, 8, 6),
                // MariaDB: Hibernate 7.4 sets no lock timeout there (the query timeout bounds the wait)
                Arguments.of(TestDatabase.MARIADB, LockMode.PESSIMISTIC, some, 3, 3, 3, 3),
                Arguments.of(TestDatabase.MARIADB, LockMode.OPTIMISTIC, some, 5, 6, 5, 6),
                // H2: the wait is in the query on both
                Arguments.of(TestDatabase.H2, LockMode.PESSIMISTIC, some, 3, 3, 3, 3),
                Arguments.of(TestDatabase.H2, LockMode.OPTIMISTIC, some, 5, 6, 5, 6));
    }

    @ParameterizedTest(name = "{0} JPA {1} wait {2}")
    @MethodSource("jpaCycles")
    void aJpaPathCycleSendsWhatItsHibernateSends(TestDatabase database, LockMode mode, Duration wait, int statements6,
                                                 int transactionCalls6, int statements7, int transactionCalls7)
            throws Exception {
        String hibernate = org.hibernate.Version.getVersionString();
        boolean seven = hibernate.startsWith("7.");
        LockRequest request = LockRequest.of("cycle:jpa:" + UUID.randomUUID()).mode(mode).maxWait(wait);
        assertCounts(database, LockStatements.JPA, mode + " wait " + wait + " on Hibernate " + hibernate,
                seven ? statements7 : statements6, seven ? transactionCalls7 : transactionCalls6, (locks, others) -> {
                    for (int i = 0; i < 3; i++) {
                        cycle(locks, request);
                    }
                }, locks -> cycle(locks, request));
    }

    /** The forms of issue 23, each on one thread with no one else on the key. */
    enum SharedForm {
        /** One of {@value #PERMITS} permits: a zero-wait take of a slot row, from a random one on. */
        PERMIT,
        /** A read: a reader slot, from a random one on, the shared row's lock (pessimistic), then a look at the writer row. */
        READ,
        /** A write: the writer row, the shared row's lock (pessimistic), then a look at the reader slots. */
        WRITE;

        static final int PERMITS = 4;

        LockRequest request(String key, LockMode mode) {
            LockRequest request = LockRequest.of(key).mode(mode).maxWait(Duration.ZERO);
            return switch (this) {
                case PERMIT -> request.permits(PERMITS);
                case READ -> request.read();
                case WRITE -> request.write();
            };
        }

        /** @return how many holders at once take every slot row this form may use */
        int slots() {
            return switch (this) {
                case PERMIT -> PERMITS;
                case READ -> LockRequest.MAX_READERS;
                // the writer row: the first write creates it; the look at the slots is one statement, rows or not
                case WRITE -> 1;
            };
        }
    }

    /**
     * database, path, mode, form, statements per cycle, transaction calls per cycle. A permit cycle
     * is the exclusive cycle of its slot (the slot tried first is free: no one else is on the key); a
     * read and a write add one read of the other side's rows (the writer row; the reader slots, one
     * statement for all of them), and a pessimistic one the lock of the key's shared row.
     */
    static Stream<Arguments> sharedCycles() {
        return Stream.of(
                // permit: START TRANSACTION, the slot's lock statement, COMMIT (on MariaDB the lock statement starts
                // the transaction: no START TRANSACTION of its own); read: the same with the shared row's
                // lock and the look at the writer row before the COMMIT; write: the same with the shared row's lock
                // and the look at the reader slots. A look at one key (the writer row) is one FOR UPDATE NOWAIT read
                // where nobody holds it; a pessimistic writer's look at the slots is one plain read of the committed
                // rows, since holding the shared row alone it waits for optimistic readers only
                Arguments.of(TestDatabase.MARIADB, LockStatements.NATIVE, LockMode.PESSIMISTIC, SharedForm.PERMIT, 2, 0),
                Arguments.of(TestDatabase.MARIADB, LockStatements.NATIVE, LockMode.PESSIMISTIC, SharedForm.READ, 4, 0),
                Arguments.of(TestDatabase.MARIADB, LockStatements.NATIVE, LockMode.PESSIMISTIC, SharedForm.WRITE, 4, 0),
                // permit: take, release; read: take the slot, look at the writer row, release; write: take the
                // writer row, look at the reader slots, release. Each look is one FOR UPDATE NOWAIT read where no
                // transaction row-locks the rows (else SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED, the read,
                // and a SKIP LOCKED probe of the rows' locks)
                Arguments.of(TestDatabase.MARIADB, LockStatements.NATIVE, LockMode.OPTIMISTIC, SharedForm.PERMIT, 2, 0),
                Arguments.of(TestDatabase.MARIADB, LockStatements.NATIVE, LockMode.OPTIMISTIC, SharedForm.READ, 3, 0),
                Arguments.of(TestDatabase.MARIADB, LockStatements.NATIVE, LockMode.OPTIMISTIC, SharedForm.WRITE, 3, 0),
                Arguments.of(TestDatabase.MYSQL8, LockStatements.NATIVE, LockMode.PESSIMISTIC, SharedForm.PERMIT, 3, 0),
                Arguments.of(TestDatabase.MYSQL8, LockStatements.NATIVE, LockMode.PESSIMISTIC, SharedForm.READ, 5, 0),
                Arguments.of(TestDatabase.MYSQL8, LockStatements.NATIVE, LockMode.PESSIMISTIC, SharedForm.WRITE, 5, 0),
                Arguments.of(TestDatabase.MYSQL8, LockStatements.NATIVE, LockMode.OPTIMISTIC, SharedForm.PERMIT, 2, 0),
                Arguments.of(TestDatabase.MYSQL8, LockStatements.NATIVE, LockMode.OPTIMISTIC, SharedForm.READ, 3, 0),
                Arguments.of(TestDatabase.MYSQL8, LockStatements.NATIVE, LockMode.OPTIMISTIC, SharedForm.WRITE, 3, 0),
                // the lock statement with the transaction's start, then the shared row's lock and the look at the
                // other side's rows, then COMMIT
                Arguments.of(TestDatabase.POSTGRESQL, LockStatements.NATIVE, LockMode.PESSIMISTIC, SharedForm.PERMIT, 1, 3),
                Arguments.of(TestDatabase.POSTGRESQL, LockStatements.NATIVE, LockMode.PESSIMISTIC, SharedForm.READ, 3, 3),
                Arguments.of(TestDatabase.POSTGRESQL, LockStatements.NATIVE, LockMode.PESSIMISTIC, SharedForm.WRITE, 3, 3),
                // take, release (with its setting), and the look between them
                Arguments.of(TestDatabase.POSTGRESQL, LockStatements.NATIVE, LockMode.OPTIMISTIC, SharedForm.PERMIT, 2, 0),
                Arguments.of(TestDatabase.POSTGRESQL, LockStatements.NATIVE, LockMode.OPTIMISTIC, SharedForm.READ, 3, 0),
                Arguments.of(TestDatabase.POSTGRESQL, LockStatements.NATIVE, LockMode.OPTIMISTIC, SharedForm.WRITE, 3, 0),
                // embedded: the exclusive cycle's counts, one more for the look (H2 has no shared row locks: no
                // pessimistic read or write)
                Arguments.of(TestDatabase.H2, LockStatements.NATIVE, LockMode.PESSIMISTIC, SharedForm.PERMIT, 4, 3),
                Arguments.of(TestDatabase.H2, LockStatements.NATIVE, LockMode.OPTIMISTIC, SharedForm.PERMIT, 5, 0),
                Arguments.of(TestDatabase.H2, LockStatements.NATIVE, LockMode.OPTIMISTIC, SharedForm.READ, 6, 0),
                Arguments.of(TestDatabase.H2, LockStatements.NATIVE, LockMode.OPTIMISTIC, SharedForm.WRITE, 6, 0));
    }

    @ParameterizedTest(name = "{0} {1} {2} {3}")
    @MethodSource("sharedCycles")
    void aPermitReadOrWriteCycleOnExistingSlotRowsSendsWhatItAlwaysSent(TestDatabase database, LockStatements path,
                                                                        LockMode mode, SharedForm form, int statements,
                                                                        int transactionCalls) throws Exception {
        String key = "cycle:" + form + ":" + UUID.randomUUID();
        LockRequest request = form.request(key, mode);
        assertCounts(database, path, mode + " " + form, statements, transactionCalls, (locks, others) -> {
            // a slot's first use creates its row, with statements of its own on MySQL 8, PostgreSQL and H2
            // (MariaDB's upsert creates it in the lock statement), and slots are chosen at random: counts
            // hold only once every slot row of the key exists (left out, reads and permits counted more: a read
            // on H2 12.3 statements a cycle where 6 hold)
            holdEverySlotAtOnce(others, key, form);
            for (int i = 0; i < 3; i++) {
                cycle(locks, request);
            }
        }, locks -> cycle(locks, request));
    }

    /**
     * As many holders as the form has slots hold the key at once, each through a manager of its own (a
     * JVM's readers share a slot, and a thread re-enters its own permit), so each holds a slot of its
     * own and every slot row exists. One after the other, optimistic whatever the mode measured: a
     * pessimistic holder keeps a connection, and the counting pool has 4.
     */
    private static void holdEverySlotAtOnce(LockManagers others, String key, SharedForm form) {
        LockRequest request = form.request(key, LockMode.OPTIMISTIC).maxWait(WARM_UP_PATIENCE);
        List<LockHandle> held = new ArrayList<>();
        try {
            for (int i = 0; i < form.slots(); i++) {
                held.add(others.another().acquire(request));
            }
            LockManager operator = others.another();
            if (form != SharedForm.WRITE) {
                assertEquals(form.slots(), operator.holders(key).size(), "a slot row per holder: " + operator.holders(key));
            }
        } finally {
            held.forEach(LockHandle::close);
        }
    }

    /**
     * A read that comes while its JVM keeps its emptied optimistic slot ({@code keepReaderSlotsFor}) joins
     * it and sends nothing. (The other counts are taken with no keep: a read each time takes a slot.)
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "POSTGRESQL", "H2"})
    void aReadWhileItsJvmKeepsItsSlotSendsNothing(TestDatabase database) throws Exception {
        LockRequest read = SharedForm.READ.request("cycle:kept-read:" + UUID.randomUUID(), LockMode.OPTIMISTIC);
        assertCounts(database, LockStatements.NATIVE, "OPTIMISTIC read, slot kept", 0, 0, Duration.ofMinutes(1),
                (locks, others) -> cycle(locks, read), locks -> cycle(locks, read));
    }

    /**
     * database, then statements for a batch of renewals whose every lease is live, and for one with a
     * lease released before it. On MariaDB and MySQL the renewal counts the rows it renewed, and a
     * read after it tells which leases were renewed only where it counts fewer than it was sent;
     * MySQL 8's renewal skips rows held elsewhere, so where it counts fewer a transaction tells which: it
     * locks the rows no other session holds and knows a released lease by the owner it reads there
     * ({@code START TRANSACTION}, that read, the renewal of the others, {@code COMMIT}).
     */
    static Stream<Arguments> renewalBatches() {
        return Stream.of(
                Arguments.of(TestDatabase.MARIADB, 1, 2),
                Arguments.of(TestDatabase.MYSQL8, 1, 5),
                // the renewal returns the rows it renewed (PostgreSQL: with its settings in the same round trip);
                // PostgreSQL's skips the rows held elsewhere, and a lease it did not find is judged after it
                Arguments.of(TestDatabase.POSTGRESQL, 1, 2),
                Arguments.of(TestDatabase.H2, 1, 1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("renewalBatches")
    void aBatchOfRenewalsSendsWhatItAlwaysSent(TestDatabase database, int everyLeaseLive, int oneLeaseReleased)
            throws Exception {
        onCountedStore(database, LockStatements.NATIVE, (repository, counting) -> {
            Duration lease = Duration.ofSeconds(30);
            String prefix = "renewal-batch:" + UUID.randomUUID() + ":";
            List<Lease> batch = new ArrayList<>();
            for (int i = 0; i < repository.renewalBatchSize(); i++) {
                batch.add(repository.takeLease(prefix + i, "owner-" + i, "holder", lease, Duration.ZERO));
            }
            batch = renewCounted(repository, counting, batch, lease, everyLeaseLive, database + ", every lease live");
            assertTrue(repository.releaseLease(batch.get(0)));
            List<Lease> answers = renewCounted(repository, counting, batch, lease, oneLeaseReleased,
                    database + ", one lease released");
            assertNull(answers.get(0), "the released lease is not renewed");
            for (Lease renewed : answers.subList(1, answers.size())) {
                assertTrue(repository.releaseLease(renewed));
            }
        });
    }

    /**
     * PostgreSQL's batch beside a row another session holds for a moment: the batch that skips it, then the
     * batch's waiting text for the lease whose row it skipped, which renews it once the row is let go.
     */
    @Test
    void aBatchBesideARowHeldElsewhereSendsOneMoreForTheLeaseItSkipped() throws Exception {
        TestDatabase database = TestDatabase.POSTGRESQL;
        ExecutorService renewing = Executors.newSingleThreadExecutor();
        try {
            onCountedStore(database, LockStatements.NATIVE, (repository, counting) -> {
                Duration lease = Duration.ofSeconds(30);
                String prefix = "renewal-batch-held:" + UUID.randomUUID() + ":";
                List<Lease> batch = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    batch.add(repository.takeLease(prefix + i, "owner-" + i, "holder", lease, Duration.ZERO));
                }
                long before;
                Future<List<Lease>> answers;
                try (Connection holder = OutsideRowLocks.heldElsewhere(database, batch.get(0).key())) {
                    before = counting.statements();
                    answers = renewing.submit(() -> repository.renewLeases(batch, lease));
                    LockWaitsAndClock.awaitRowLockWait(database);
                    holder.rollback();
                }
                List<Lease> renewed = answers.get(30, TimeUnit.SECONDS);
                assertEquals(2, counting.statements() - before, "statements for a batch beside a row held elsewhere");
                for (Lease each : renewed) {
                    assertNotNull(each, "a live lease is renewed");
                    assertTrue(repository.releaseLease(each));
                }
            });
        } finally {
            renewing.shutdownNow();
        }
    }

    /** @return the store's answers, after asserting the statements they took and that all but the first are renewed */
    private static List<Lease> renewCounted(JpaLockRepository repository, CountingDataSource counting, List<Lease> batch,
                                            Duration lease, int statements, String what) {
        long before = counting.statements();
        List<Lease> answers = repository.renewLeases(batch, lease);
        long sent = counting.statements() - before;
        System.out.printf("statements per batch of %d renewals, %s: %d%n", batch.size(), what, sent);
        assertEquals(statements, sent, "statements for a batch of renewals, " + what);
        for (Lease renewed : answers.subList(1, answers.size())) {
            assertNotNull(renewed, "a live lease is renewed");
        }
        return answers;
    }

    private static void assertCounts(TestDatabase database, LockStatements path, String what, int statements,
                                     int transactionCalls, WarmUp warmUp, ManagerWork cycle) throws Exception {
        assertCounts(database, path, what, statements, transactionCalls, Duration.ZERO, warmUp, cycle);
    }

    private static void assertCounts(TestDatabase database, LockStatements path, String what, int statements,
                                     int transactionCalls, Duration readerSlotKeep, WarmUp warmUp, ManagerWork cycle)
            throws Exception {
        onCountedStore(database, path, (repository, counting) -> {
            try (LockManager locks = LockManagerBuilder.on(repository).keepReaderSlotsFor(readerSlotKeep).build();
                 LockManagers others = new LockManagers(repository)) {
                warmUp.run(locks, others);
                long statementsBefore = counting.statements();
                long transactionCallsBefore = counting.transactionCalls();
                for (int i = 0; i < CYCLES; i++) {
                    cycle.run(locks);
                }
                double perCycle = (counting.statements() - statementsBefore) / (double) CYCLES;
                double transactionCallsPerCycle = (counting.transactionCalls() - transactionCallsBefore) / (double) CYCLES;
                System.out.printf("statements per cycle %s %s %s: %.2f statements, %.2f transaction calls%n",
                        database, path, what, perCycle, transactionCallsPerCycle);
                assertEquals(statements, perCycle, 0.0, "statements per cycle");
                assertEquals(transactionCalls, transactionCallsPerCycle, 0.0, "commits, rollbacks, autocommit switches");
            }
        });
    }

    /**
     * A row lock passed to the next thread of the JVM in its transaction (clock tokens, native path): one
     * statement, where the release and the next thread's lock are a rollback, a new transaction and a lock
     * statement; no commit or rollback. Then {@value #CYCLES} more, a run of hand-overs, one statement each.
     */
    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "POSTGRESQL"})
    void aRowHandedToTheNextHolderOfItsJvmSendsOneStatement(TestDatabase database) throws Exception {
        onCountedStore(database, LockStatements.NATIVE, LockTokens.CLOCK, (repository, counting) -> {
            String key = "count-hand-over:" + UUID.randomUUID();
            PessimisticHold hold = repository.lockPessimistic(key, UUID.randomUUID().toString(), "first", WARM_UP_PATIENCE);
            assertNotNull(hold);
            long statementsBefore = counting.statements();
            long transactionCallsBefore = counting.transactionCalls();
            for (int i = 0; i < CYCLES; i++) {
                hold = hold.handOver(UUID.randomUUID().toString(), "next " + i);
                assertNotNull(hold, "hand-over " + i);
            }
            double perHandOver = (counting.statements() - statementsBefore) / (double) CYCLES;
            System.out.printf("statements per hand-over %s: %.2f statements, %d transaction calls%n", database,
                    perHandOver, counting.transactionCalls() - transactionCallsBefore);
            assertEquals(1, perHandOver, 0.0, "statements per hand-over");
            assertEquals(0, counting.transactionCalls() - transactionCallsBefore, "commits, rollbacks, autocommit switches");
            assertTrue(hold.release());
        });
    }

    /**
     * A take that finds its key's lease kept after the last release here ({@code LockManagerBuilder.keepLeasesFor})
     * passes it on in the hand-over's statement, and the release is kept again: one statement a cycle, where a take
     * and a release are two. The manager's time stands still, so that no run of keeps ends during the count (a run
     * ends after half a second to a second, and its next take pauses and takes the key anew).
     */
    static Stream<Arguments> keptLeaseCycles() {
        return Stream.of(Arguments.of(TestDatabase.MARIADB, 1), Arguments.of(TestDatabase.MYSQL8, 1),
                Arguments.of(TestDatabase.POSTGRESQL, 1), Arguments.of(TestDatabase.H2, 1));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("keptLeaseCycles")
    void aCycleOnALeaseKeptAfterItsReleaseSendsOneStatement(TestDatabase database, int statements) throws Exception {
        onCountedStore(database, LockStatements.NATIVE, (repository, counting) -> {
            LockRequest request = LockRequest.of("cycle:kept-lease:" + UUID.randomUUID()).mode(LockMode.OPTIMISTIC)
                    .lease(Duration.ofMinutes(5)); // outlives the keep: a lease that might run out within it is released
            try (DefaultLockManager locks = new DefaultLockManager(repository, ModelHolds.FROZEN, 1, Duration.ofSeconds(5),
                    LockMetrics.NONE)) {
                locks.passKeysOn(LockManagerBuilder.DEFAULT_ROW_HAND_OVER_RUN, Duration.ofMinutes(1));
                cycle(locks, request); // the take, and its release kept
                long statementsBefore = counting.statements();
                long transactionCallsBefore = counting.transactionCalls();
                for (int i = 0; i < CYCLES; i++) {
                    cycle(locks, request);
                }
                double perCycle = (counting.statements() - statementsBefore) / (double) CYCLES;
                System.out.printf("statements per cycle %s NATIVE OPTIMISTIC, lease kept: %.2f statements, %d transaction"
                        + " calls%n", database, perCycle, counting.transactionCalls() - transactionCallsBefore);
                assertEquals(statements, perCycle, 0.0, "statements per cycle");
                assertEquals(0, counting.transactionCalls() - transactionCallsBefore, "commits, rollbacks, autocommit switches");
            }
        });
    }

    /** Runs the work on a store of the path given, on a pool of 4 that counts what reaches the database. */
    private static void onCountedStore(TestDatabase database, LockStatements path, CountedStoreWork work)
            throws Exception {
        onCountedStore(database, path, LockTokens.WRITTEN, work);
    }

    private static void onCountedStore(TestDatabase database, LockStatements path, LockTokens tokens,
                                       CountedStoreWork work) throws Exception {
        database.requireReachable();
        CountingDataSource counting = new CountingDataSource(database);
        HikariConfig config = new HikariConfig();
        config.setDataSource(counting);
        config.setMaximumPoolSize(4);
        config.setPoolName("locked-counting-" + database.name().toLowerCase());
        try (HikariDataSource pool = new HikariDataSource(config)) {
            EntityManagerFactory factory = database.entityManagerFactory(pool);
            try {
                JpaLockRepository repository = JpaLockRepository.builder(factory).statements(path).tokens(tokens).build();
                repository.createTableIfMissing();
                work.run(repository, counting);
            } finally {
                factory.close();
            }
        }
    }

    private interface CountedStoreWork {
        void run(JpaLockRepository repository, CountingDataSource counting) throws Exception;
    }

    @FunctionalInterface
    /** The warm-up, on the manager counted and, where it needs more JVMs, on others of the same store. */
    private interface WarmUp {
        void run(LockManager locks, LockManagers others) throws Exception;
    }

    /** Managers standing for other JVMs, closed with the test. */
    private static final class LockManagers implements AutoCloseable {
        private final JpaLockRepository repository;
        private final List<LockManager> built = new ArrayList<>();

        LockManagers(JpaLockRepository repository) {
            this.repository = repository;
        }

        LockManager another() {
            // no kept slot: every slot the warm-up held is free again when the count begins
            LockManager manager = LockManagerBuilder.on(repository).keepReaderSlotsFor(Duration.ZERO).build();
            built.add(manager);
            return manager;
        }

        @Override
        public void close() {
            built.forEach(LockManager::close);
        }
    }

    private interface ManagerWork {
        void run(LockManager locks) throws Exception;
    }

    private static void cycle(LockManager locks, LockRequest request) {
        try (LockHandle held = locks.acquire(request)) {
            held.token();
        }
    }
}
