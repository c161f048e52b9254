package io.locked.it.galera;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.LockStoreUnavailableException;
import io.locked.contract.Await;
import io.locked.contract.PermitHistoryChecker;
import io.locked.contract.PermitHistoryChecker.PermitSection;
import io.locked.contract.ReadWriteHistoryChecker;
import io.locked.contract.ReadWriteHistoryChecker.Access;
import io.locked.it.process.ExclusionRun;
import io.locked.it.process.ExclusionRun.Outcome;
import io.locked.it.process.ExclusionRun.Sections;
import io.locked.it.process.WorkerProcess;
import io.locked.it.server.GaleraCluster;
import io.locked.it.server.MariaDbEndpoint;
import io.locked.jpa.JpaLockRepository;
import io.locked.jpa.LockStatements;
import io.locked.jpa.testing.InnoDbTransactions;
import io.locked.jpa.testing.PlainDataSource;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.Lease;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Locks on a three-node MariaDB Galera cluster started for this class on loopback. Worker JVMs are
 * spread over the nodes (one node each) or all sent to one, and the history checker and a
 * non-atomic counter judge every configuration the library accepts. The configurations it refuses
 * fail at start-up with their message; and the negative control, the refusal switched off with the
 * JVMs spread, must show overlaps: the harness can see what the refusal prevents. Permits and
 * read/write locks run the same way, judged by their own checkers, and the read/write lock's reads
 * once more without the lock around them, with their own negative control.
 */
class GaleraClusterTest {
    private static final int NODES = 3;
    private static final int THREADS = 4;
    /** Per thread; {@code -Dgalera.cycles} runs longer. */
    private static final int CYCLES = Integer.getInteger("galera.cycles", 30);
    private static final int EXPECTED = NODES * THREADS * CYCLES;
    private static final int PERMITS = 3;
    private static final int WRITE_PERCENT = 25;
    /**
     * Reads (1), updates and deletes (2) that first wait until their node has applied what the
     * cluster committed before them.
     */
    private static final String WAIT_FOR_THE_CLUSTER = "sessionVariables=wsrep_sync_wait=3";

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    static Path dir;
    private static GaleraCluster cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        long started = System.nanoTime();
        cluster = GaleraCluster.start(dir.resolve("cluster"), NODES);
        System.out.printf("Galera: %d nodes synced in %.1fs%n", NODES, (System.nanoTime() - started) / 1e9);
        // the lock table exists before the workers start
        try (EntityManagerFactory factory = unit(cluster.endpoint(0))) {
            new JpaLockRepository(factory).createTableIfMissing();
        }
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void optimisticLeasesExcludeWithEveryJvmOnADifferentNode() throws Exception {
        Outcome outcome = run("optimistic, spread over the nodes", LockMode.OPTIMISTIC, false, spread(), false);
        assertExclusive(outcome);
    }

    @Test
    void optimisticLeasesExcludeThroughASingleWriter() throws Exception {
        Outcome outcome = run("optimistic, single writer", LockMode.OPTIMISTIC, true, oneNode(), false);
        assertExclusive(outcome);
    }

    @Test
    void pessimisticLocksExcludeThroughASingleWriter() throws Exception {
        Outcome outcome = run("pessimistic, single writer", LockMode.PESSIMISTIC, true, oneNode(), false);
        assertExclusive(outcome);
    }

    /**
     * The negative control: single-writer declared while each JVM reaches a different node, which
     * is what the refusal of pessimistic locks on Galera prevents. Row locks are per node, so the
     * checker must find JVMs holding the key at once.
     */
    @Test
    void pessimisticLocksSpreadOverTheNodesOverlapOnceTheRefusalIsSwitchedOff() throws Exception {
        Outcome outcome = run("negative control: pessimistic spread, single writer declared", LockMode.PESSIMISTIC, true,
                spread(), true);
        assertTrue(outcome.overlaps() > 0 && outcome.counter() < outcome.sections().size(),
                "pessimistic locks on three Galera nodes never overlapped, or lost no update: the harness cannot see what"
                        + " the refusal prevents");
    }

    @Test
    void optimisticPermitsAdmitAtMostTheirNumberWithEveryJvmOnADifferentNode() throws Exception {
        Sections<PermitSection> run = runRows("permits=" + PERMITS, LockMode.OPTIMISTIC, false, spread(),
                ExclusionRun.permitSections());
        PermitHistoryChecker.Verdict verdict = PermitHistoryChecker.check(run.sections(), PERMITS);
        System.out.printf("Galera permits of %d, optimistic, spread over the nodes, %d JVMs x %d threads: %d sections in"
                        + " %.1fs (with JVM start), at most %d inside at once, %d silent violations, %d signalled%n",
                PERMITS, NODES, THREADS, run.sections().size(), run.seconds(), verdict.mostInsideAtOnce(),
                verdict.silent().size(), verdict.signalled().size());
        assertEquals(EXPECTED, run.sections().size(), "sections recorded");
        assertEquals(List.of(), verdict.silent(), "silent violations");
        assertEquals(List.of(), verdict.signalled(), "signalled violations");
        assertTrue(verdict.mostInsideAtOnce() >= 2, "the permits never ran side by side: " + verdict.mostInsideAtOnce());
        assertTrue(verdict.mostInsideAtOnce() <= PERMITS, "more inside than permits: " + verdict.mostInsideAtOnce());
    }

    /**
     * Each JVM's connections reach one node, and nothing more is set: each reader and writer reads the
     * other's rows on the node of its own take, which has applied every take certified before its own
     * ({@link #aReaderAndAWriterTakingAtOnceOnTwoNodesSeeEachOther}).
     */
    @Test
    void optimisticReadersShareAndWritersExcludeWithEveryJvmOnADifferentNode() throws Exception {
        assertReadWrite("optimistic, spread over the nodes", runRows("write-percent=" + WRITE_PERCENT,
                LockMode.OPTIMISTIC, false, spread(), ExclusionRun.readWriteSections()));
    }

    /**
     * Each JVM's connections move from node to node after every statement (Connector/J's load
     * balancing), so a read, a renewal or a release may reach a node that has not applied a take yet:
     * the connections wait for the cluster, set by the JDBC URL.
     */
    @Test
    void optimisticReadersShareAndWritersExcludeWithConnectionsMovingBetweenNodesThatWaitForTheCluster()
            throws Exception {
        MariaDbEndpoint anyNode = cluster.anyNode().with(WAIT_FOR_THE_CLUSTER);
        Set<String> seen = new HashSet<>();
        try (Connection connection = anyNode.connect()) {
            for (int i = 0; i < 30; i++) {
                seen.add(query(connection, "SELECT CONCAT('port ', @@port, ', wsrep_sync_wait ', @@wsrep_sync_wait)"));
            }
        }
        assertEquals(NODES, seen.size(), "nodes reached through the load-balancing URL: " + seen);
        assertTrue(seen.stream().allMatch(node -> node.endsWith("wsrep_sync_wait 3")), "not set by the URL: " + seen);
        assertReadWrite("optimistic, connections moving between the nodes, waiting for the cluster",
                runRows("write-percent=" + WRITE_PERCENT, LockMode.OPTIMISTIC, false, Collections.nCopies(NODES, anyNode),
                        ExclusionRun.readWriteSections()));
    }

    @Test
    void pessimisticReadersShareAndWritersExcludeThroughASingleWriter() throws Exception {
        assertReadWrite("pessimistic, single writer", runRows("write-percent=" + WRITE_PERCENT, LockMode.PESSIMISTIC,
                true, oneNode(), ExclusionRun.readWriteSections()));
    }

    /**
     * A reader taking on node 2 and a writer taking on node 3 at the same instant see each other when
     * they read on the node of their own take: a node commits every transaction in the cluster's one
     * order, after all those certified before it, so a read after one's own take sees every take
     * certified earlier. On another node, only once that node has applied it, which
     * {@code wsrep_sync_wait} waits for.
     */
    @ParameterizedTest(name = "reads on {0}")
    @ValueSource(strings = {"the node of their own take", "the third node, waiting for the cluster"})
    void aReaderAndAWriterTakingAtOnceOnTwoNodesSeeEachOther(String reads) throws Exception {
        boolean ownNode = reads.contains("own take");
        MariaDbEndpoint third = cluster.endpoint(0).with(WAIT_FOR_THE_CLUSTER);
        int keys = 400;
        try (ReaderWriterRace race = new ReaderWriterRace(cluster.endpoint(1), ownNode ? cluster.endpoint(1) : third,
                cluster.endpoint(2), ownNode ? cluster.endpoint(2) : third)) {
            int bothMissed = race.bothMissed(keys);
            System.out.printf("Galera: a reader on node 2 and a writer on node 3 taking at once, reads on %s: each"
                    + " missed the other on %d of %d keys%n", reads, bothMissed, keys);
            assertEquals(0, bothMissed, "keys where both the reader and the writer would have entered");
        }
    }

    /**
     * The negative control: reads on the third node that do not wait for it. Now and then the reader
     * and the writer both miss the other's take (measured: on 5 to 30 keys in 1000, first on the 79th
     * to the 517th); the harness stops at the first key where they do, so its generous bound costs
     * time only when it fails.
     */
    @Test
    void aReaderAndAWriterReadingOnAThirdNodeWithoutWaitingMissEachOther() throws Exception {
        int keys = 10_000;
        try (ReaderWriterRace race = new ReaderWriterRace(cluster.endpoint(1), cluster.endpoint(0), cluster.endpoint(2),
                cluster.endpoint(0))) {
            int first = race.firstBothMissed(keys);
            System.out.printf("Galera: a reader on node 2 and a writer on node 3 taking at once, reads on node 1 without"
                    + " waiting: each missed the other first on key %d%n", first);
            assertTrue(first > 0, "in " + keys + " keys the reader and the writer always saw each other: the harness"
                    + " cannot see what wsrep_sync_wait prevents");
        }
    }

    /**
     * The statement itself, without the JVM-local queue in front of it: two nodes take each of many
     * free keys at the same instant, keys without a row and keys whose row was just released through
     * the third node. Certification must leave exactly one of the two with the lease; a node that ran
     * a losing take again after it had returned its rows would grant both.
     */
    @ParameterizedTest(name = "row exists: {0}")
    @ValueSource(booleans = {false, true})
    void twoNodesTakingOneFreeKeyAtOnceGrantItOnce(boolean rowExists) throws Exception {
        int keys = 400;
        try (EntityManagerFactory first = unit(cluster.endpoint(1)); EntityManagerFactory second = unit(cluster.endpoint(2));
             EntityManagerFactory third = unit(cluster.endpoint(0))) {
            List<JpaLockRepository> nodes = List.of(new JpaLockRepository(first), new JpaLockRepository(second));
            JpaLockRepository releaser = new JpaLockRepository(third);
            ExecutorService takers = Executors.newFixedThreadPool(2);
            try {
                int both = 0;
                int none = 0;
                for (int k = 0; k < keys; k++) {
                    String key = "it:galera:race:" + k + ":" + UUID.randomUUID();
                    if (rowExists) {
                        releaser.releaseLease(releaser.takeLease(key, "before", "before", Duration.ofMinutes(5), Duration.ZERO));
                    }
                    CyclicBarrier together = new CyclicBarrier(2);
                    List<Future<Lease>> takes = new ArrayList<>();
                    for (int n = 0; n < 2; n++) {
                        JpaLockRepository node = nodes.get(n);
                        String owner = "owner-" + n;
                        takes.add(takers.submit(() -> {
                            together.await();
                            return node.takeLease(key, owner, owner, Duration.ofMinutes(5), Duration.ofSeconds(5));
                        }));
                    }
                    int granted = 0;
                    for (Future<Lease> take : takes) {
                        granted += take.get() == null ? 0 : 1;
                    }
                    both += granted == 2 ? 1 : 0;
                    none += granted == 0 ? 1 : 0;
                }
                System.out.printf("Galera: %d free keys (%s) taken at once on two nodes: %d granted twice,"
                        + " %d granted to neither%n", keys, rowExists ? "rows released just before" : "no rows yet", both, none);
                assertEquals(0, both, "keys whose lease two nodes granted at once");
            } finally {
                takers.shutdownNow();
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = LockStatements.class, names = {"NATIVE", "JPA"})
    void pessimisticLocksAreRefusedOnAGaleraNodeWithTheReasonAndTheFix(LockStatements path) throws Exception {
        // the JPA path's row locks are per node too
        try (EntityManagerFactory factory = unit(cluster.endpoint(0));
             LockManager locks = LockManagerBuilder.on(JpaLockRepository.builder(factory).statements(path).build()).build()) {
            String key = "it:galera:refused:" + UUID.randomUUID();
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> locks.acquire(LockRequest.of(key).mode(LockMode.PESSIMISTIC)));
            assertTrue(refused.getMessage().contains("Galera") && refused.getMessage().contains("locked.galera.single-writer")
                    && refused.getMessage().contains("OPTIMISTIC"), refused.getMessage());
            // the safe mode works on the same store
            try (LockHandle lock = locks.acquire(LockRequest.of(key).mode(LockMode.OPTIMISTIC))) {
                assertTrue(lock.isValid());
            }
        }
    }

    /** A {@code @Locked} pessimistic method on a Galera store fails the deployment, naming the method. */
    @Test
    void aPessimisticLockedMethodFailsTheDeploymentOnGalera() throws Exception {
        Path log = dir.resolve("locked-bean-refused.log");
        try (WorkerProcess worker = WorkerProcess.start(log, cluster.endpoint(1).workerEnvironment(), line -> { },
                "locked-bean", "MARIADB", "PESSIMISTIC", "it:galera:bean:" + UUID.randomUUID(), "1", "1",
                dir.resolve("never-written.txt").toString())) {
            assertNotEquals(0, worker.waitForExit(120), "the deployment started with a pessimistic @Locked method on Galera");
            String output = Files.readString(log);
            assertTrue(output.contains("@Locked PESSIMISTIC on io.locked.it.process.LockedCounter#increment")
                    && output.contains("Galera") && output.contains("locked.galera.single-writer"), output);
        }
    }

    /**
     * Single-writer declared, but one JVM's connections alternate between two nodes (as a
     * load-balancing URL or proxy would): a pessimistic take on the second node while the JVM holds
     * a lock on the first is refused, naming both. Once nothing is held there (released, or its
     * session gone, as when the writer fails) the JVM may lock on the other node.
     */
    @Test
    void aSingleWriterJvmThatReachesASecondNodeWhileHoldingIsRefused() throws Exception {
        RoundRobinDataSource nodes = new RoundRobinDataSource(List.of(cluster.endpoint(0), cluster.endpoint(1)));
        try (EntityManagerFactory factory = unit(nodes);
             LockManager locks = LockManagerBuilder.on(JpaLockRepository.builder(factory).galeraSingleWriter(true).build())
                     .sessionCheckEvery(Duration.ofMillis(200)).build()) {
            LockRequest first = LockRequest.of("it:galera:two-nodes:a:" + UUID.randomUUID()).mode(LockMode.PESSIMISTIC);
            LockRequest second = LockRequest.of("it:galera:two-nodes:b:" + UUID.randomUUID()).mode(LockMode.PESSIMISTIC)
                    .maxWait(Duration.ofSeconds(5));
            try (LockHandle held = locks.acquire(first)) {
                LockStoreUnavailableException refused = assertThrows(LockStoreUnavailableException.class,
                        () -> locks.acquire(second));
                assertTrue(refused.getMessage().contains("reached Galera node")
                        && refused.getMessage().contains("while it holds locks on node"), refused.getMessage());
                assertTrue(held.isValid());
            }
            // nothing held any more: this JVM may move to another node, as after a proxy's failover
            try (LockHandle next = locks.acquire(first)) {
                assertTrue(next.isValid());
            }
            // a hold whose session ended no longer counts, though its holder has not closed yet
            LockHandle orphan = locks.acquire(first);
            String holderNode = endSessionsInTransaction();
            Await.invalid(orphan, Duration.ofSeconds(30), "ending its session on " + holderNode);
            try (LockHandle elsewhere = locks.acquire(second)) {
                assertTrue(elsewhere.isValid(), "refused although the hold on " + holderNode + " had ended");
            }
            assertThrows(LockLostException.class, orphan::close);
        }
    }

    // ends, on each node, the test user's sessions with an open transaction; names the node. The engine's own
    // list, not information_schema.innodb_trx, a copy that may predate the hold (InnoDbTransactions)
    private static String endSessionsInTransaction() throws Exception {
        for (int i = 0; i < NODES; i++) {
            MariaDbEndpoint endpoint = cluster.endpoint(i);
            try (Connection observer = endpoint.connect()) {
                if (!InnoDbTransactions.endActiveSessions(observer, endpoint.user()).isEmpty()) {
                    return "node " + (i + 1);
                }
            }
        }
        throw new AssertionError("no session of the test user holds a transaction on any node");
    }

    private static void assertExclusive(Outcome outcome) {
        assertEquals(EXPECTED, outcome.sections().size(), "cycles recorded");
        assertEquals(List.of(), outcome.violations());
        assertEquals(EXPECTED, outcome.counter(), "the counter lost increments");
    }

    /**
     * Writers never beside anyone, their tokens above every earlier section's, readers side by side,
     * and no lost update: each writer read the counter as the writer before it left it.
     */
    private static void assertReadWrite(String what, Sections<Access> run) {
        ReadWriteHistoryChecker.Verdict verdict = ReadWriteHistoryChecker.check(run.sections());
        long writes = run.sections().stream().filter(Access::writer).count();
        System.out.printf("Galera read/write, %s, %d JVMs x %d threads, %d%% writes: %d sections (%d writes) in %.1fs"
                        + " (with JVM start), at most %d readers at once, %d silent violations, %d signalled, counter %d"
                        + " of %d writes%n", what, NODES, THREADS, WRITE_PERCENT, run.sections().size(), writes,
                run.seconds(), verdict.mostReadersAtOnce(), verdict.silent().size(), verdict.signalled().size(),
                run.counter(), writes);
        assertEquals(EXPECTED, run.sections().size(), "sections recorded");
        assertEquals(List.of(), verdict.silent(), "silent violations");
        assertEquals(List.of(), verdict.signalled(), "signalled violations");
        assertTrue(verdict.mostReadersAtOnce() >= 2, "the readers never shared the key: " + verdict.mostReadersAtOnce());
        assertEquals(writes, run.counter(), "the counter lost writes");
    }

    private static List<MariaDbEndpoint> spread() {
        List<MariaDbEndpoint> endpoints = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            endpoints.add(cluster.endpoint(i));
        }
        return endpoints;
    }

    private static List<MariaDbEndpoint> oneNode() {
        return Collections.nCopies(NODES, cluster.endpoint(0));
    }

    private Outcome run(String what, LockMode mode, boolean singleWriter, List<MariaDbEndpoint> routes,
                        boolean negativeControl) throws Exception {
        String key = "it:galera:" + mode + ":" + UUID.randomUUID();
        Path runDir = Files.createDirectories(dir.resolve(key.replace(':', '-')));
        String conflictsBefore = conflicts();
        Outcome outcome = ExclusionRun.run(runDir, cluster.endpoint(0)::connect, key,
                routes.stream().map(MariaDbEndpoint::workerEnvironment).toList(),
                ExclusionRun.cycles(key, List.of("database=MARIADB", "mode=" + mode, "threads=" + THREADS,
                        "cycles=" + CYCLES, "galera-single-writer=" + singleWriter, "go-on-after-failures=" + negativeControl)));
        System.out.println(outcome.summary("Galera " + what + ", " + routes.size() + " JVMs x " + THREADS + " threads",
                EXPECTED) + "; per node certification failures and brute-force aborts, before " + conflictsBefore
                + ", after " + conflicts());
        return outcome;
    }

    /** Worker JVMs cycling on one key's permits or read/write lock ({@code formArgument}), as {@link #run}. */
    private <T> Sections<T> runRows(String formArgument, LockMode mode, boolean singleWriter, List<MariaDbEndpoint> routes,
                                     Function<String, T> parser) throws Exception {
        String key = "it:galera:" + formArgument.replace('=', '-') + ":" + mode + ":" + UUID.randomUUID();
        Path runDir = Files.createDirectories(dir.resolve(key.replace(':', '-')));
        String conflictsBefore = conflicts();
        Sections<T> run = ExclusionRun.run(runDir, cluster.endpoint(0)::connect, key,
                routes.stream().map(MariaDbEndpoint::workerEnvironment).toList(),
                ExclusionRun.cycles(key, List.of("database=MARIADB", "mode=" + mode, "threads=" + THREADS,
                        "cycles=" + CYCLES, "galera-single-writer=" + singleWriter, formArgument)), parser);
        System.out.println("Galera " + formArgument + " " + mode + ": per node certification failures and brute-force"
                + " aborts, before " + conflictsBefore + ", after " + conflicts());
        return run;
    }

    private static String query(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getString(1);
        }
    }

    // what Galera signalled: local transactions that failed certification or were aborted by a replicated one
    private static String conflicts() throws Exception {
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            nodes.add(cluster.node(i).query("SELECT GROUP_CONCAT(VARIABLE_VALUE ORDER BY VARIABLE_NAME DESC SEPARATOR '/')"
                    + " FROM information_schema.GLOBAL_STATUS"
                    + " WHERE VARIABLE_NAME IN ('WSREP_LOCAL_CERT_FAILURES', 'WSREP_LOCAL_BF_ABORTS')"));
        }
        return String.join(" ", nodes);
    }

    static EntityManagerFactory unit(MariaDbEndpoint endpoint) {
        return Persistence.createEntityManagerFactory(TestDatabase.UNIT, Map.of(
                "jakarta.persistence.jdbc.url", endpoint.url(),
                "jakarta.persistence.jdbc.user", endpoint.user(),
                "jakarta.persistence.jdbc.password", endpoint.password()));
    }

    private static EntityManagerFactory unit(DataSource dataSource) {
        return Persistence.createEntityManagerFactory(TestDatabase.UNIT, Map.of(
                "jakarta.persistence.nonJtaDataSource", dataSource,
                "hibernate.dialect", "org.hibernate.dialect.MariaDBDialect"));
    }

    /** A data source that opens each new connection on the next node in turn, unpooled. */
    private static final class RoundRobinDataSource extends PlainDataSource {
        private final List<MariaDbEndpoint> nodes;
        private final AtomicInteger next = new AtomicInteger();

        RoundRobinDataSource(List<MariaDbEndpoint> nodes) {
            this.nodes = nodes;
        }

        @Override
        public Connection getConnection() throws SQLException {
            return nodes.get(Math.floorMod(next.getAndIncrement(), nodes.size())).connect();
        }
    }
}
