package io.locked.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.jpa.JpaLockRepository;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.PessimisticHold;
import jakarta.persistence.EntityManagerFactory;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Many held leases: one JVM holds N optimistic leases (10,000 by default, of 30 s) and does nothing
 * else for a window (one lease length by default), while the statements that reach the database and
 * the CPU time of the watchdog's threads are counted. Three runs per database, in one manager each:
 * one lease, N leases renewed in batches (the store's own {@code renewalBatchSize}), and N leases
 * renewed one by one (the store seen through a wrapper that does not batch), as before batches.
 *
 * <p>Run with {@code mvn -q -Pbench -DskipTests verify -pl it-tests -am
 * -Dbench.main=io.locked.bench.RenewalBenchmark}. System properties: {@code bench.databases}
 * (mariadb), {@code bench.renewal.leases} (10000), {@code bench.renewal.lease-seconds} (30),
 * {@code bench.renewal.seconds}, the window (the lease), {@code bench.renewal.warmup-seconds}, how
 * long the leases are held before the window (the lease), {@code bench.renewal.batches-only} (false:
 * also one lease, and the many leases one by one), {@code bench.renewal.out} (target/renewal-benchmark.md).
 */
public final class RenewalBenchmark {
    private static final int ACQUIRING_THREADS = 8;
    private static final String KEYS = "renewal-bench-";

    private RenewalBenchmark() {
    }

    /**
     * One run's counts over its window.
     *
     * @param label        what was held, and how it was renewed
     * @param leases       leases held
     * @param windowNanos  the window
     * @param statements   statements executed in it, by anything in this JVM (nothing but renewals runs)
     * @param renewed      leases renewed in it, as the store confirmed them
     * @param storeCalls   renewal calls to the store in it (a batch is one call)
     * @param schedulerCpu CPU time of the watchdog's scheduler threads, nanoseconds
     * @param watchdogCpu  CPU time of the watchdog's threads (scheduler and store calls), nanoseconds
     * @param processCpu   CPU time of the whole JVM, nanoseconds
     * @param lost         leases no longer valid at the window's end
     */
    record Run(String label, int leases, long windowNanos, long statements, long renewed, long storeCalls,
               long schedulerCpu, long watchdogCpu, long processCpu, int lost) {
        double perSecond(long count) {
            return count * 1e9 / windowNanos;
        }

        double coreShare(long cpuNanos) {
            return 100.0 * cpuNanos / windowNanos;
        }
    }

    public static void main(String[] args) throws Exception {
        List<BenchDatabase> databases = Arrays.stream(Benchmark.property("bench.databases", "mariadb").split(","))
                .map(name -> BenchDatabase.valueOf(name.trim().toUpperCase(Locale.ROOT))).toList();
        int leases = Integer.parseInt(Benchmark.property("bench.renewal.leases", "10000"));
        Duration lease = Duration.ofSeconds(Long.parseLong(Benchmark.property("bench.renewal.lease-seconds", "30")));
        Duration window = Duration.ofSeconds(Long.parseLong(Benchmark.property("bench.renewal.seconds",
                String.valueOf(lease.toSeconds()))));
        Duration warmUp = Duration.ofSeconds(Long.parseLong(Benchmark.property("bench.renewal.warmup-seconds",
                String.valueOf(lease.toSeconds()))));
        StringBuilder report = new StringBuilder("## Renewals of many held leases, " + Instant.now() + "\n\n"
                + "Java " + Runtime.version() + ", " + Runtime.getRuntime().availableProcessors() + " cores; leases of "
                + lease.toSeconds() + " s (renewed every " + lease.toSeconds() / 3 + " s), a window of "
                + window.toSeconds() + " s after all were taken and held for " + warmUp.toSeconds()
                + " s more; the JVM does nothing else meanwhile.\n\n"
                + "| database | leases held | renewed in | statements/s | leases renewed/s | store calls/s"
                + " | watchdog CPU, % of a core (its scheduler) | JVM CPU, % of a core | lost |\n"
                + "|---|---:|---|---:|---:|---:|---:|---:|---:|\n");
        for (BenchDatabase database : databases) {
            for (Run run : runs(database, leases, lease, warmUp, window)) {
                report.append(String.format(Locale.ROOT, "| %s | %,d | %s | %.1f | %.0f | %.1f | %.2f (%.2f) | %.2f | %d |%n",
                        database, run.leases(), run.label(), run.perSecond(run.statements()), run.perSecond(run.renewed()),
                        run.perSecond(run.storeCalls()), run.coreShare(run.watchdogCpu()), run.coreShare(run.schedulerCpu()),
                        run.coreShare(run.processCpu()), run.lost()));
            }
        }
        Path out = Path.of(Benchmark.property("bench.renewal.out", "target/renewal-benchmark.md"));
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, report);
        System.out.println(report);
        System.out.println("Written to " + out.toAbsolutePath());
    }

    private static List<Run> runs(BenchDatabase database, int leases, Duration lease, Duration warmUp, Duration window)
            throws Exception {
        // the many leases in batches alone: an A/B of the batch's cost in a third of the time
        boolean batchesOnly = Boolean.parseBoolean(Benchmark.property("bench.renewal.batches-only", "false"));
        StatementCounting counting = new StatementCounting(database);
        HikariConfig config = new HikariConfig();
        config.setDataSource(counting);
        config.setMaximumPoolSize(ACQUIRING_THREADS + 4);
        config.setPoolName("renewal-bench-" + database.name().toLowerCase(Locale.ROOT));
        List<Run> runs = new ArrayList<>();
        try (HikariDataSource pool = new HikariDataSource(config)) {
            EntityManagerFactory factory = database.entityManagerFactory(pool);
            try {
                JpaLockRepository repository = JpaLockRepository.builder(factory).build();
                repository.createTableIfMissing();
                try (Connection connection = pool.getConnection(); Statement delete = connection.createStatement()) {
                    delete.executeUpdate("DELETE FROM locked_lock WHERE lock_key LIKE '" + KEYS + "%'");
                }
                if (!batchesOnly) {
                    runs.add(run("one lease, batches", 1, new CountedRenewals(repository, true), lease, warmUp, window, counting));
                }
                runs.add(run("batches of " + repository.renewalBatchSize(), leases, new CountedRenewals(repository, true),
                        lease, warmUp, window, counting));
                if (!batchesOnly) {
                    runs.add(run("one by one", leases, new CountedRenewals(repository, false), lease, warmUp, window, counting));
                }
            } finally {
                factory.close();
            }
        }
        return runs;
    }

    private static Run run(String label, int count, CountedRenewals store, Duration lease, Duration warmUp,
                           Duration window, StatementCounting counting) throws Exception {
        String prefix = KEYS + label.replace(' ', '-') + "-" + System.nanoTime() + "-";
        List<LockHandle> held = new ArrayList<>();
        ExecutorService acquirers = Executors.newFixedThreadPool(ACQUIRING_THREADS);
        try (LockManager locks = LockManagerBuilder.on(store).build()) {
            List<Future<List<LockHandle>>> parts = new ArrayList<>();
            for (int part = 0; part < ACQUIRING_THREADS; part++) {
                int first = part;
                parts.add(acquirers.submit(() -> {
                    List<LockHandle> handles = new ArrayList<>();
                    for (int i = first; i < count; i += ACQUIRING_THREADS) {
                        handles.add(locks.acquire(LockRequest.of(prefix + i).mode(LockMode.OPTIMISTIC).lease(lease)));
                    }
                    return handles;
                }));
            }
            for (Future<List<LockHandle>> part : parts) {
                held.addAll(part.get());
            }
            // a round of renewals of every lease first, so that the code that runs per batch (a few
            // times a second) is compiled by the JIT, as in a JVM that has held its leases for a while
            Thread.sleep(warmUp.toMillis());
            long statements = counting.statements();
            long renewed = store.renewed.get();
            long calls = store.calls.get();
            Map<Long, Long> watchdogCpu = watchdogCpu(false);
            Map<Long, Long> schedulerCpu = watchdogCpu(true);
            long processCpu = processCpu();
            long started = System.nanoTime();
            Thread.sleep(window.toMillis());
            long windowNanos = System.nanoTime() - started;
            Run run = new Run(label, count, windowNanos, counting.statements() - statements, store.renewed.get() - renewed,
                    store.calls.get() - calls, cpuSince(schedulerCpu, true),
                    cpuSince(watchdogCpu, false), processCpu() - processCpu,
                    (int) held.stream().filter(handle -> !handle.isValid()).count());
            for (LockHandle handle : held) {
                handle.close();
            }
            return run;
        } finally {
            acquirers.shutdownNow();
        }
    }

    private static final String SCHEDULER = "locked-lease-watchdog-";
    private static final String CALLS = "locked-watchdog-call-";

    /** @return CPU time so far of each of the watchdog's threads: its scheduler's only, or those and its store calls' */
    private static Map<Long, Long> watchdogCpu(boolean schedulerOnly) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        Map<Long, Long> cpu = new HashMap<>();
        for (ThreadInfo thread : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (thread != null && (thread.getThreadName().startsWith(SCHEDULER)
                    || !schedulerOnly && thread.getThreadName().startsWith(CALLS))) {
                cpu.put(thread.getThreadId(), Math.max(0, threads.getThreadCpuTime(thread.getThreadId())));
            }
        }
        return cpu;
    }

    /** @return CPU time the threads used since the reading given (a thread that ended meanwhile is not counted) */
    private static long cpuSince(Map<Long, Long> before, boolean schedulerOnly) {
        long used = 0;
        for (Map.Entry<Long, Long> now : watchdogCpu(schedulerOnly).entrySet()) {
            used += now.getValue() - before.getOrDefault(now.getKey(), 0L);
        }
        return used;
    }

    private static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /**
     * The store, counting the leases it renewed and the renewal calls it got; with {@code batched}
     * false it offers no batches (size 1), so the watchdog renews each lease alone, as before batches.
     */
    private static final class CountedRenewals implements LockRepository {
        private final LockRepository store;
        private final boolean batched;
        final AtomicLong renewed = new AtomicLong();
        final AtomicLong calls = new AtomicLong();

        CountedRenewals(LockRepository store, boolean batched) {
            this.store = store;
            this.batched = batched;
        }

        @Override
        public int renewalBatchSize() {
            return batched ? store.renewalBatchSize() : 1;
        }

        @Override
        public List<Lease> renewLeases(List<Lease> leases, Duration duration) {
            calls.incrementAndGet();
            List<Lease> answers = store.renewLeases(leases, duration);
            renewed.addAndGet(answers.stream().filter(answer -> answer != null).count());
            return answers;
        }

        @Override
        public Lease renewLease(Lease lease, Duration duration) {
            calls.incrementAndGet();
            Lease answer = store.renewLease(lease, duration);
            if (answer != null) {
                renewed.incrementAndGet();
            }
            return answer;
        }

        @Override
        public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
            return store.lockPessimistic(key, owner, holder, dbWait);
        }

        @Override
        public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
            return store.takeLease(key, owner, holder, lease, dbWait);
        }

        @Override
        public Lease handOverLease(Lease lease, String newOwner, String holder, Duration duration) {
            return store.handOverLease(lease, newOwner, holder, duration);
        }

        @Override
        public boolean releaseLease(Lease lease) {
            return store.releaseLease(lease);
        }

        @Override
        public boolean releaseLease(Lease lease, Duration holdAtLeast) {
            return store.releaseLease(lease, holdAtLeast);
        }

        @Override
        public int deleteIdleRows(Duration idleFor) {
            return store.deleteIdleRows(idleFor);
        }
    }
}
