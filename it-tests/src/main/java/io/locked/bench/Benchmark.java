package io.locked.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockType;
import io.locked.api.LockRequest;
import io.locked.bench.Runner.Result;
import io.locked.jpa.JpaLockRepository;
import io.locked.jpa.LockStatements;
import io.locked.jpa.LockTokens;
import io.locked.jpa.StandbyCommits;
import jakarta.persistence.EntityManagerFactory;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;

/**
 * What a lock costs next to the database's own floor and next to other projects' JDBC locks
 * ({@link PeerCycles}): every case at 1, 4 and 16 threads, on a key per thread and on one shared
 * key, per database; then the lock table at 1 k and 1 M rows, and the heap after 1 M cycles.
 * Prints one Markdown report and writes it to {@code bench.out}.
 *
 * <p>System properties: {@code bench.databases} (h2,mariadb,mysql8,postgresql), {@code bench.threads}
 * (1,4,16), {@code bench.seconds} per cell (2), {@code bench.warmup-seconds} (1), {@code bench.slices}
 * a cell is measured in, interleaved with the other cases (4),
 * {@code bench.heap-cycles} (1000000), {@code bench.heap-database} (h2, or none),
 * {@code bench.table-size} (true: the 1 k / 1 M rows runs), {@code bench.out} (target/benchmark.md),
 * {@code bench.cases} (the names of the cases to run, separated by ";", as for a profile of one case;
 * all of them if unset), {@code bench.synchronous-commit} (on PostgreSQL, the API's repository with
 * {@code locked.postgresql.synchronous-commit} at that level; unset by default), {@code bench.cleanup} (false: true adds the cleanup of a million idle rows
 * per database, {@link CleanupBenchmark}, with its own properties).
 */
public final class Benchmark {
    private static final int POOL_SIZE = 24;
    private static final int WARM_UP_THREADS = 4;
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** The permits of the permit cases: on one key, this many of their threads may be inside at once. */
    static final int PERMITS = 4;
    /** The share of reads in the read-mostly cases, in percent. */
    static final int READ_PERCENT = 90;
    /** How long the lease-keep case keeps a released lease: far past a cycle's gap between a release and the next take. */
    static final Duration LEASE_KEEP = Duration.ofMillis(2);
    private static final int SMALL_TABLE = 1_000;
    private static final int LARGE_TABLE = 1_000_000;

    private final Runner runner;
    private final int[] threadCounts;
    private final long heapCycles;
    private final boolean tableSize;
    /** Only these cases, by name; empty: all of them. */
    private final List<String> caseNames;

    private Benchmark(Runner runner, int[] threadCounts, long heapCycles, boolean tableSize, List<String> caseNames) {
        this.runner = runner;
        this.threadCounts = threadCounts;
        this.heapCycles = heapCycles;
        this.tableSize = tableSize;
        this.caseNames = caseNames;
    }

    public static void main(String[] args) throws Exception {
        List<BenchDatabase> databases = Arrays.stream(property("bench.databases", "h2,mariadb,mysql8,postgresql").split(","))
                .map(name -> BenchDatabase.valueOf(name.trim().toUpperCase(Locale.ROOT))).toList();
        int[] threads = Arrays.stream(property("bench.threads", "1,4,16").split(","))
                .mapToInt(count -> Integer.parseInt(count.trim())).toArray();
        Runner runner = new Runner(Duration.ofMillis((long) (1000 * Double.parseDouble(property("bench.warmup-seconds", "1")))),
                Duration.ofMillis((long) (1000 * Double.parseDouble(property("bench.seconds", "2")))),
                Integer.parseInt(property("bench.slices", "4")));
        String heapDatabaseName = property("bench.heap-database", "h2").toUpperCase(Locale.ROOT);
        BenchDatabase heapDatabase = heapDatabaseName.equals("NONE") ? null : BenchDatabase.valueOf(heapDatabaseName);
        Benchmark benchmark = new Benchmark(runner, threads, Long.parseLong(property("bench.heap-cycles", "1000000")),
                Boolean.parseBoolean(property("bench.table-size", "true")),
                Arrays.stream(property("bench.cases", "").split(";")).map(String::trim).filter(name -> !name.isEmpty())
                        .toList());

        StringBuilder report = new StringBuilder("## Benchmark, " + Instant.now() + "\n\n"
                + "Java " + Runtime.version() + ", " + Runtime.getRuntime().availableProcessors() + " cores; "
                + "one Hikari pool of " + POOL_SIZE + " per database for every case; an empty critical section; "
                + runner + ".\n");
        for (BenchDatabase database : databases) {
            report.append(benchmark.run(database, database == heapDatabase));
        }
        if (Boolean.parseBoolean(property("bench.cleanup", "false"))) {
            for (BenchDatabase database : databases) {
                report.append(CleanupBenchmark.section(database));
            }
        }
        Path out = Path.of(property("bench.out", "target/benchmark.md"));
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, report);
        System.out.println(report);
        System.out.println("Written to " + out.toAbsolutePath());
    }

    /** Where the Redis of the reference case listens: {@code bench.redis}, host:port, 127.0.0.1:6379 by default. */
    private static InetSocketAddress redisAddress() {
        String[] hostAndPort = property("bench.redis", "127.0.0.1:6379").split(":");
        return new InetSocketAddress(hostAndPort[0], Integer.parseInt(hostAndPort[1]));
    }

    static String property(String name, String fallback) {
        String value = System.getProperty(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    private String run(BenchDatabase database, boolean measureHeap) throws Exception {
        Report report = new Report();
        String version;
        try (Connection probe = DriverManager.getConnection(database.url(), database.user(), database.password())) {
            version = probe.getMetaData().getDatabaseProductName() + " " + probe.getMetaData().getDatabaseProductVersion()
                    + ", driver " + probe.getMetaData().getDriverName() + " " + probe.getMetaData().getDriverVersion();
        } catch (SQLException unreachable) {
            throw new IllegalStateException(database + " is not reachable at " + database.url()
                    + " (start it, or leave it out with -Dbench.databases=...)", unreachable);
        }
        // a PostgreSQL setting: other databases refuse it
        String standbyWait = database == BenchDatabase.POSTGRESQL ? property("bench.synchronous-commit", "") : "";
        report.heading(database + ": " + version
                + (standbyWait.isEmpty() ? "" : ", the API with locked.postgresql.synchronous-commit=" + standbyWait));
        try (HikariDataSource pool = database.pool(POOL_SIZE);
             Connection flushCounter = DriverManager.getConnection(database.url(), database.user(), database.password())) {
            runner.countLogFlushes(database.logFlushes(flushCounter));
            EntityManagerFactory factory = database.entityManagerFactory(pool);
            JpaLockRepository repository = standbyWait.isEmpty() ? new JpaLockRepository(factory)
                    : JpaLockRepository.builder(factory).postgresqlSynchronousCommit(StandbyCommits.parse(standbyWait)).build();
            repository.createTableIfMissing();
            JpaLockRepository jpaPath = JpaLockRepository.builder(factory).statements(LockStatements.JPA).build();
            JpaLockRepository clockTokens = JpaLockRepository.builder(factory).tokens(LockTokens.CLOCK).build();
            try (LockManager locks = LockManagerBuilder.on(repository).build();
                 LockManager clockLocks = LockManagerBuilder.on(clockTokens).build();
                 LockManager keepLocks = LockManagerBuilder.on(repository).keepLeasesFor(LEASE_KEEP).build();
                 LockManager jpaLocks = LockManagerBuilder.on(jpaPath).build();
                 ManagerPerThread perThread = new ManagerPerThread(repository);
                 WeldContainer container = lockedBeans(factory);
                 PeerCycles peers = new PeerCycles(pool, database);
                 ReferenceLocks references = new ReferenceLocks(pool, database, redisAddress())) {
                RawCycles raw = new RawCycles(pool, database);
                List<Case> cases = cases(raw, locks, perThread, container.select(LockedCycles.class).get(), jpaLocks,
                        clockLocks, keepLocks, peers, references)
                        .stream().filter(benchCase -> caseNames.isEmpty() || caseNames.contains(benchCase.name()))
                        .filter(benchCase -> admitted(repository, references, benchCase)).toList();
                createRows(pool, cases);
                // one unrecorded pass first, so that no case is measured while the JIT still compiles
                // code that a later case gets for free
                for (Case benchCase : cases) {
                    runner.runSlice(new Runner.Tally(), benchCase, WARM_UP_THREADS, false, keyPrefix(benchCase));
                }
                List<Result> results = new ArrayList<>();
                for (int threads : threadCounts) {
                    for (boolean contended : new boolean[] {false, true}) {
                        results.addAll(interleaved(database, cases, threads, contended));
                    }
                }
                // the report lists case by case, as the cases were declared
                results.sort(Comparator.comparingInt((Result result) -> cases.indexOf(result.benchCase()))
                        .thenComparingInt(Result::threads).thenComparing(Result::contended));
                report.cases(results);
                if (results.stream().anyMatch(result -> result.benchCase().writes())) {
                    report.heading(database + ": the writers' wait under read load (wait: from asking for the lock"
                            + " until inside it)");
                    report.waits(results);
                }
                report.heading(database + ": targets");
                report.targets(results);
                report.heading(database + ": CPU per cycle, µs: the whole JVM's, and (in brackets) the user CPU of"
                        + " the cycling threads alone");
                report.cpu(results);
                if (tableSize) {
                    report.heading(database + ": lock table size (1 thread, a random row of the table per cycle)");
                    report.line("| case | p50 µs at 1 k rows | p50 µs at 1 M rows | cycles/s at 1 k | cycles/s at 1 M | 1 M ÷ 1 k | within 10 % |");
                    report.line("|---|---:|---:|---:|---:|---:|---|");
                    tableSize(database, pool, locks, raw, report);
                }
                if (measureHeap) {
                    report.heading(database + ": heap");
                    report.line(heap(locks));
                }
            } finally {
                runner.countLogFlushes(null);
                factory.close();
            }
        }
        return report.toString();
    }

    /** Every case at one thread count, slice by slice, each round starting with the next case. */
    private List<Result> interleaved(BenchDatabase database, List<Case> cases, int threads, boolean contended)
            throws InterruptedException {
        Map<Case, Runner.Tally> tallies = new LinkedHashMap<>();
        for (int round = 0; round < runner.slices(); round++) {
            for (int i = 0; i < cases.size(); i++) {
                Case benchCase = cases.get((i + round) % cases.size());
                runner.runSlice(tallies.computeIfAbsent(benchCase, ignored -> new Runner.Tally()), benchCase, threads,
                        contended, keyPrefix(benchCase));
            }
        }
        List<Result> results = new ArrayList<>();
        for (Case benchCase : cases) {
            Result result = tallies.get(benchCase).result(benchCase, threads, contended);
            System.err.printf(Locale.ROOT, "%s %-34s %2d threads %-9s %8.0f/s p50 %8.1f µs CPU %6.1f µs (cycling, user"
                            + " %6.1f µs)%s%s%n", database, benchCase.name(), threads, contended ? "contended" : "",
                    result.cyclesPerSecond(), result.p50(), result.cpuMicros(), result.cyclingUserMicros(),
                    result.waits() == null ? "" : String.format(Locale.ROOT, " wait p50/p99 µs: reads %.1f/%.1f, writes"
                            + " %.1f/%.1f", result.waits().readP50(), result.waits().readP99(),
                            result.waits().writeP50(), result.waits().writeP99()),
                    result.errors() > 0 ? "  errors " + result.errors() + ": " + result.firstError() : "");
            results.add(result);
        }
        return results;
    }

    private static WeldContainer lockedBeans(EntityManagerFactory factory) {
        BenchStore.current = factory;
        // beans.xml leaves the demo's beans out of discovery while this property is set
        System.setProperty("locked.bench", "true");
        return new Weld().addBeanClasses(LockedCycles.class, BenchStore.class).initialize();
    }

    private static List<Case> cases(RawCycles raw, LockManager locks, ManagerPerThread perThread, LockedCycles locked,
                                    LockManager jpaLocks, LockManager clockLocks, LockManager keepLocks, PeerCycles peers,
                                    ReferenceLocks references) {
        return List.of(
                new Case("SELECT 1", Case.FLOOR, Case.FLOOR, raw::selectOne),
                new Case("autocommit UPDATE", Case.FLOOR, Case.FLOOR, raw::autocommitUpdate),
                new Case("raw SELECT FOR UPDATE + COMMIT", "pessimistic", Case.RAW, raw::selectForUpdate),
                new Case("raw SELECT FOR UPDATE + token UPDATE + COMMIT", "pessimistic", Case.RAW_WITH_TOKEN,
                        raw::selectForUpdateWriteToken),
                new Case("raw conditional UPDATE + UPDATE", "optimistic", Case.RAW, raw::conditionalUpdate),
                new Case("raw conditional UPDATE with token + SELECT token + UPDATE", "optimistic", Case.RAW_WITH_TOKEN,
                        raw::conditionalUpdateWithToken),
                new Case("API pessimistic", "pessimistic", Case.API, apiCycle(locks, LockMode.PESSIMISTIC)),
                new Case("API optimistic", "optimistic", Case.API, apiCycle(locks, LockMode.OPTIMISTIC)),
                new Case("API pessimistic, 4 permits", "pessimistic", Case.API_PERMITS,
                        permitCycle(locks, LockMode.PESSIMISTIC)),
                new Case("API optimistic, 4 permits", "optimistic", Case.API_PERMITS, permitCycle(locks, LockMode.OPTIMISTIC)),
                new Case("API pessimistic, read", "pessimistic", Case.API_READ, readCycle(locks, LockMode.PESSIMISTIC)),
                new Case("API optimistic, read", "optimistic", Case.API_READ, readCycle(locks, LockMode.OPTIMISTIC)),
                new Case("API pessimistic, 90% read", "pessimistic", Case.API_READ_MOSTLY,
                        readCycle(locks, LockMode.PESSIMISTIC), writeCycle(locks, LockMode.PESSIMISTIC), 100 - READ_PERCENT),
                new Case("API optimistic, 90% read", "optimistic", Case.API_READ_MOSTLY,
                        readCycle(locks, LockMode.OPTIMISTIC), writeCycle(locks, LockMode.OPTIMISTIC), 100 - READ_PERCENT),
                new Case("API pessimistic, clock tokens", "pessimistic", Case.API_CLOCK_TOKENS,
                        apiCycle(clockLocks, LockMode.PESSIMISTIC)),
                new Case("API optimistic, lease keep", "optimistic", Case.API_LEASE_KEEP, apiCycle(keepLocks, LockMode.OPTIMISTIC)),
                new Case("API pessimistic, a manager per thread", "pessimistic", Case.API_MANAGER_PER_THREAD,
                        perThread.cycle(LockMode.PESSIMISTIC)),
                new Case("API optimistic, a manager per thread", "optimistic", Case.API_MANAGER_PER_THREAD,
                        perThread.cycle(LockMode.OPTIMISTIC)),
                new Case("@Locked pessimistic", "pessimistic", Case.LOCKED, locked::pessimistic),
                new Case("@Locked optimistic", "optimistic", Case.LOCKED, locked::optimistic),
                new Case("API pessimistic, JPA path", "pessimistic", Case.API_JPA_PATH, apiCycle(jpaLocks, LockMode.PESSIMISTIC)),
                new Case("API optimistic, JPA path", "optimistic", Case.API_JPA_PATH, apiCycle(jpaLocks, LockMode.OPTIMISTIC)),
                // leases, like the optimistic mode: the targets set Locked's optimistic API beside them
                new Case("ShedLock (usingDbTime)", "optimistic", Case.SHEDLOCK, peers::shedLock),
                new Case("Spring JdbcLockRegistry", "optimistic", Case.SPRING_JDBC, peers::springJdbcLockRegistry),
                // no fencing token, nothing that outlives the holder's session: the speed to reach, not an equal
                new Case("Redis SET NX", "optimistic", Case.REDIS, references::redisSetNx),
                new Case("named lock", "pessimistic", Case.NAMED_LOCK, references::namedLock));
    }

    /**
     * @return false for a read/write case in a mode the store refuses (pessimistic on H2, which has no
     *         shared row lock), for Redis where none answers, and for named locks on H2: said on the
     *         console where it is not plain, left out of the report
     */
    private static boolean admitted(JpaLockRepository repository, ReferenceLocks references, Case benchCase) {
        if (benchCase.layer().equals(Case.REDIS)) {
            return references.redisAnswers();
        }
        if (benchCase.layer().equals(Case.NAMED_LOCK)) {
            return references.namedLocks();
        }
        if (!benchCase.layer().equals(Case.API_READ) && !benchCase.layer().equals(Case.API_READ_MOSTLY)) {
            return true;
        }
        LockMode mode = benchCase.mode().equals("pessimistic") ? LockMode.PESSIMISTIC : LockMode.OPTIMISTIC;
        return repository.refusal(mode, LockType.READ).map(reason -> {
            System.err.println("left out: " + benchCase.name() + ": " + reason);
            return false;
        }).orElse(true);
    }

    static Cycle apiCycle(LockManager locks, LockMode mode) {
        return (key, inside) -> {
            try (LockHandle ignored = locks.acquire(LockRequest.of(key).mode(mode).maxWait(WAIT))) {
                inside.run();
            }
        };
    }

    /** One of {@value #PERMITS} permits of the key: on one key, that many threads may be inside at once. */
    static Cycle permitCycle(LockManager locks, LockMode mode) {
        return (key, inside) -> {
            try (LockHandle ignored = locks.acquire(LockRequest.of(key).mode(mode).permits(PERMITS).maxWait(WAIT))) {
                inside.run();
            }
        };
    }

    /** A read of the key's read/write lock. */
    static Cycle readCycle(LockManager locks, LockMode mode) {
        return (key, inside) -> {
            try (LockHandle ignored = locks.acquire(LockRequest.of(key).mode(mode).maxWait(WAIT).read())) {
                inside.run();
            }
        };
    }

    /** A write of the key's read/write lock. */
    static Cycle writeCycle(LockManager locks, LockMode mode) {
        return (key, inside) -> {
            try (LockHandle ignored = locks.acquire(LockRequest.of(key).mode(mode).maxWait(WAIT).write())) {
                inside.run();
            }
        };
    }

    private static String keyPrefix(Case benchCase) {
        return "bench:" + benchCase.layer() + ":" + benchCase.name().replace(' ', '-') + ":";
    }

    /** Every case starts on existing rows, as the raw cases require. */
    private void createRows(HikariDataSource pool, List<Case> cases) throws SQLException {
        // the raw cases need the rows of every thread of every run, the warm-up pass's included
        int maxThreads = Math.max(WARM_UP_THREADS, Arrays.stream(threadCounts).max().orElse(1));
        try (Connection connection = pool.getConnection()) {
            try (Statement clear = connection.createStatement()) {
                clear.executeUpdate("DELETE FROM locked_lock");
            }
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO locked_lock (lock_key, version, token) VALUES (?, 0, 0)")) {
                for (Case benchCase : cases) {
                    for (int t = 0; t <= maxThreads; t++) {
                        insert.setString(1, keyPrefix(benchCase) + (t == maxThreads ? "shared" : String.valueOf(t)));
                        insert.addBatch();
                    }
                }
                insert.executeBatch();
            }
        }
    }

    /**
     * The lock cases and their raw forms on a random row of the table, at 1 k rows and at 1 M: the
     * raw forms show how much of any growth is the database's own. The table is settled (statistics,
     * vacuum, checkpoint) after each fill, so that the fill's own after-effects are not measured.
     */
    private void tableSize(BenchDatabase database, HikariDataSource pool, LockManager locks, RawCycles raw,
                           Report report) throws Exception {
        fill(database, pool, 1, SMALL_TABLE);
        database.settle(pool);
        List<Result> small = interleaved(database, randomRowCases(locks, raw, SMALL_TABLE), 1, false);
        fill(database, pool, SMALL_TABLE + 1, LARGE_TABLE);
        database.settle(pool);
        List<Result> large = interleaved(database, randomRowCases(locks, raw, LARGE_TABLE), 1, false);
        for (int i = 0; i < small.size(); i++) {
            report.rows(small.get(i).benchCase().name(), small.get(i).p50(), large.get(i).p50(),
                    small.get(i).cyclesPerSecond(), large.get(i).cyclesPerSecond());
        }
        try (Connection connection = pool.getConnection(); Statement clear = connection.createStatement()) {
            clear.executeUpdate("DELETE FROM locked_lock WHERE lock_key LIKE 'fill-%'");
        }
    }

    private static List<Case> randomRowCases(LockManager locks, RawCycles raw, int rows) {
        return List.of(
                randomRow("API pessimistic", "pessimistic", Case.API, apiCycle(locks, LockMode.PESSIMISTIC), rows),
                randomRow("API optimistic", "optimistic", Case.API, apiCycle(locks, LockMode.OPTIMISTIC), rows),
                // a writer looks at its key's 32 reader slots: a look that read the table would grow with it
                randomRow("API optimistic, write", "optimistic", Case.API_READ, writeCycle(locks, LockMode.OPTIMISTIC), rows),
                randomRow("raw SELECT FOR UPDATE + COMMIT", "pessimistic", Case.RAW, raw::selectForUpdate, rows),
                randomRow("raw conditional UPDATE + UPDATE", "optimistic", Case.RAW, raw::conditionalUpdate, rows));
    }

    private static Case randomRow(String name, String mode, String layer, Cycle cycle, int rows) {
        return new Case(name, mode, layer,
                (ignored, inside) -> cycle.run("fill-" + ThreadLocalRandom.current().nextInt(1, rows + 1), inside));
    }

    private static void fill(BenchDatabase database, HikariDataSource pool, int from, int to) throws SQLException {
        try (Connection connection = pool.getConnection();
             PreparedStatement insert = connection.prepareStatement(database.fillRows)) {
            insert.setInt(1, from);
            insert.setInt(2, to);
            insert.executeUpdate();
        }
    }

    /**
     * Runs heapCycles API cycles (4 threads, a key each, the modes alternating) and reports the heap
     * around them. A tenth as many cycles run first and are not counted: the pool, the JIT and an
     * embedded database settle into their working size before the first reading.
     */
    private String heap(LockManager locks) throws InterruptedException {
        runCycles(locks, heapCycles / 10);
        long before = usedHeapAfterGc();
        double seconds = runCycles(locks, heapCycles);
        long after = usedHeapAfterGc();
        return String.format(Locale.ROOT, "%d API cycles (4 threads, pessimistic and optimistic alternating) in %.0f s,"
                        + " after %d unrecorded ones: used heap after a full GC %.1f MB before, %.1f MB after (%+.1f MB).",
                heapCycles, seconds, heapCycles / 10, before / 1e6, after / 1e6, (after - before) / 1e6);
    }

    /** @return the seconds that cycles API cycles took on 4 threads */
    private static double runCycles(LockManager locks, long cycles) throws InterruptedException {
        int threads = 4;
        List<Thread> workers = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < threads; t++) {
            String key = "heap:" + t;
            long perThread = cycles / threads + (t < cycles % threads ? 1 : 0);
            workers.add(new Thread(() -> {
                for (long i = 0; i < perThread; i++) {
                    LockMode mode = (i & 1) == 0 ? LockMode.PESSIMISTIC : LockMode.OPTIMISTIC;
                    try (LockHandle ignored = locks.acquire(LockRequest.of(key).mode(mode).maxWait(WAIT))) {
                        // empty critical section
                    } catch (RuntimeException failure) {
                        failures.add(failure);
                        return;
                    }
                }
            }, "heap-" + t));
        }
        long started = System.nanoTime();
        workers.forEach(Thread::start);
        for (Thread worker : workers) {
            worker.join();
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("heap run failed", failures.get(0));
        }
        return (System.nanoTime() - started) / 1e9;
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
