package io.locked.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.jpa.JpaLockRepository;
import io.locked.jpa.LockTokens;
import jakarta.persistence.EntityManagerFactory;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The hot key's fairness to other JVMs: this JVM (the hammering one) cycles 16 threads of one lock manager on
 * one key, {@code PESSIMISTIC}, while another JVM, started for it with a pool and manager of its own, asks for
 * the same key every 20 ms from one thread and reports how long each of its acquisitions waited. Per database:
 * with clock tokens, where the hammering JVM passes the row from thread to thread in runs bounded by its
 * manager's {@link LockManagerBuilder#handOverRowsFor} (one row per bound asked for), and with written tokens,
 * where each of its holders commits and the next locks anew. And, where lease keeps are asked for, one thread
 * cycling {@code OPTIMISTIC} on a manager that keeps released leases that long
 * ({@link LockManagerBuilder#keepLeasesFor}; 0: none), the other JVM asking {@code OPTIMISTIC} too.
 *
 * <p>Run with {@code mvn -q -Pbench -DskipTests verify -pl it-tests -am
 * -Dbench.main=io.locked.bench.HandOverFairness}. System properties: {@code bench.databases} (mariadb,postgresql),
 * {@code bench.fairness.seconds} (20), {@code bench.fairness.row-runs} (milliseconds, comma-separated: 20; empty:
 * no pessimistic rows), {@code bench.fairness.lease-keeps} (milliseconds, comma-separated; empty, the default: none),
 * {@code bench.fairness.out} (target/hand-over-fairness.md).
 */
public final class HandOverFairness {
    private static final int HAMMERING_THREADS = 16;
    private static final long ASK_EVERY_MILLIS = 20;
    private static final String ASK = "ask";

    private HandOverFairness() {
    }

    /**
     * What the hammering JVM does: {@code threads} of one manager on the key in {@code mode}, the manager given a
     * run bound of row hand-overs (null: written tokens, or optimistic) and a lease keep (null: pessimistic).
     */
    record Hammering(LockMode mode, int threads, LockTokens tokens, Duration rowRun, Duration leaseKeep) {
        String label() {
            return mode == LockMode.OPTIMISTIC ? "optimistic, " + threads + (threads == 1 ? " thread" : " threads")
                    + " | lease keep " + leaseKeep.toMillis() + " ms"
                    : (tokens == LockTokens.CLOCK ? "clock (row hand-over)" : "written") + " | "
                    + (rowRun == null ? "" : rowRun.toMillis() + " ms");
        }
    }

    /**
     * @param cycles     the hammering JVM's acquisitions in the window
     * @param waitsNanos how long each of the other JVM's acquisitions waited
     */
    record Run(Hammering hammering, long cycles, long windowNanos, long[] waitsNanos) {
        double cyclesPerSecond() {
            return cycles * 1e9 / windowNanos;
        }

        double waitMillis(double quantile) {
            long[] sorted = waitsNanos.clone();
            Arrays.sort(sorted);
            return Samples.percentileMicros(sorted, quantile) / 1000;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals(ASK)) {
            ask(BenchDatabase.valueOf(args[1]), LockTokens.valueOf(args[2]), LockMode.valueOf(args[3]), args[4],
                    Duration.ofMillis(Long.parseLong(args[5])));
            return;
        }
        List<BenchDatabase> databases = Arrays.stream(Benchmark.property("bench.databases", "mariadb,postgresql").split(","))
                .map(name -> BenchDatabase.valueOf(name.trim().toUpperCase(Locale.ROOT))).toList();
        Duration window = Duration.ofSeconds(Long.parseLong(Benchmark.property("bench.fairness.seconds", "20")));
        List<Duration> rowRuns = millis(Benchmark.property("bench.fairness.row-runs", "20"));
        List<Duration> leaseKeeps = millis(Benchmark.property("bench.fairness.lease-keeps", ""));
        StringBuilder report = new StringBuilder("## The hot key's fairness to another JVM, " + Instant.now() + "\n\n"
                + "Java " + Runtime.version() + ", " + Runtime.getRuntime().availableProcessors() + " cores; one JVM"
                + " cycles " + HAMMERING_THREADS + " threads of one manager on one key (`PESSIMISTIC`, an empty critical"
                + " section), another JVM asks for the key every " + ASK_EVERY_MILLIS + " ms from one thread; "
                + window.toSeconds() + " s per row.\n\n"
                + "| database | hammering JVM | row run or lease keep | hammering JVM, cycles/s | other JVM's acquisitions | its wait p50 ms | p99 ms | max ms |\n"
                + "|---|---|---:|---:|---:|---:|---:|---:|\n");
        for (BenchDatabase database : databases) {
            List<Hammering> hammerings = new ArrayList<>();
            for (Duration rowRun : rowRuns) {
                hammerings.add(new Hammering(LockMode.PESSIMISTIC, HAMMERING_THREADS, LockTokens.CLOCK, rowRun, null));
            }
            if (!rowRuns.isEmpty()) {
                hammerings.add(new Hammering(LockMode.PESSIMISTIC, HAMMERING_THREADS, LockTokens.WRITTEN, null, null));
            }
            // the keep serves a thread that takes its key again and again: one thread, nobody of its JVM waiting
            for (Duration keep : leaseKeeps) {
                hammerings.add(new Hammering(LockMode.OPTIMISTIC, 1, LockTokens.WRITTEN, null, keep));
            }
            for (Hammering hammering : hammerings) {
                Run run = run(database, hammering, window);
                report.append(String.format(Locale.ROOT, "| %s | %s | %.0f | %d | %.1f | %.1f | %.1f |%n", database,
                        hammering.label(), run.cyclesPerSecond(), run.waitsNanos().length, run.waitMillis(0.5),
                        run.waitMillis(0.99), run.waitMillis(1.0)));
            }
        }
        Path out = Path.of(Benchmark.property("bench.fairness.out", "target/hand-over-fairness.md"));
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, report);
        System.out.println(report);
        System.out.println("Written to " + out.toAbsolutePath());
    }

    private static List<Duration> millis(String list) {
        return Arrays.stream(list.split(",")).map(String::trim).filter(millis -> !millis.isEmpty())
                .map(millis -> Duration.ofMillis(Long.parseLong(millis))).toList();
    }

    private static Run run(BenchDatabase database, Hammering hammering, Duration window) throws Exception {
        String key = "fairness-bench-" + hammering.mode() + "-" + hammering.tokens() + "-" + System.nanoTime();
        try (HikariDataSource pool = database.pool(HAMMERING_THREADS + 4)) {
            EntityManagerFactory unit = database.entityManagerFactory(pool);
            try {
                JpaLockRepository store = JpaLockRepository.builder(unit).tokens(hammering.tokens()).build();
                store.createTableIfMissing();
                LockManagerBuilder manager = LockManagerBuilder.on(store);
                if (hammering.rowRun() != null) {
                    manager.handOverRowsFor(hammering.rowRun());
                }
                if (hammering.leaseKeep() != null) {
                    manager.keepLeasesFor(hammering.leaseKeep());
                }
                try (LockManager locks = manager.build()) {
                    return measure(database, key, locks, hammering, window);
                }
            } finally {
                unit.close();
            }
        }
    }

    private static Run measure(BenchDatabase database, String key, LockManager locks, Hammering hammering,
                               Duration window) throws Exception {
        LockRequest request = LockRequest.of(key).mode(hammering.mode()).maxWait(Duration.ofSeconds(60));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong cycles = new AtomicLong();
        ExecutorService threads = Executors.newFixedThreadPool(hammering.threads());
        Process other = null;
        try {
            List<Future<?>> hammers = new ArrayList<>();
            for (int t = 0; t < hammering.threads(); t++) {
                hammers.add(threads.submit(() -> {
                    while (!stop.get()) {
                        try (LockHandle held = locks.acquire(request)) {
                            cycles.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            other = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                    "-Djava.util.logging.config.file=" + System.getProperty("java.util.logging.config.file", ""),
                    "-cp", System.getProperty("java.class.path"), HandOverFairness.class.getName(), ASK, database.name(),
                    hammering.tokens().name(), hammering.mode().name(), key, Long.toString(window.toMillis()))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start(); // started while the hammering warms up
            List<Long> waits = new ArrayList<>();
            long counted = 0;
            long start = 0;
            long end = 0;
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(other.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null && end == 0; line = lines.readLine()) {
                    if (line.equals("ASKING")) { // the other JVM started and asks from now on: the window begins
                        counted = cycles.get();
                        start = System.nanoTime();
                    } else if (line.startsWith("WAITED ")) {
                        waits.add(Long.parseLong(line.substring("WAITED ".length())));
                    } else if (line.equals("DONE")) {
                        end = System.nanoTime();
                    }
                }
            }
            if (start == 0 || end == 0 || other.waitFor() != 0) {
                throw new IllegalStateException("the other JVM did not finish its window (exit " + other.waitFor() + ")");
            }
            long hammered = cycles.get() - counted;
            stop.set(true);
            for (Future<?> hammer : hammers) {
                hammer.get(60, TimeUnit.SECONDS);
            }
            return new Run(hammering, hammered, end - start, waits.stream().mapToLong(Long::longValue).toArray());
        } finally {
            stop.set(true);
            if (other != null) {
                other.destroyForcibly();
            }
            threads.shutdownNow();
        }
    }

    /** The other JVM: asks for the key every 20 ms for the window, printing each acquisition's wait in nanoseconds. */
    private static void ask(BenchDatabase database, LockTokens tokens, LockMode mode, String key, Duration window)
            throws Exception {
        LockRequest request = LockRequest.of(key).mode(mode).maxWait(Duration.ofSeconds(60));
        try (HikariDataSource pool = database.pool(4)) {
            EntityManagerFactory unit = database.entityManagerFactory(pool);
            try (LockManager other = LockManagerBuilder.on(JpaLockRepository.builder(unit).tokens(tokens).build()).build()) {
                System.out.println("ASKING");
                long start = System.nanoTime();
                while (System.nanoTime() - start < window.toNanos()) {
                    long asked = System.nanoTime();
                    try (LockHandle held = other.acquire(request)) {
                        System.out.println("WAITED " + (System.nanoTime() - asked));
                    }
                    Thread.sleep(ASK_EVERY_MILLIS);
                }
                System.out.println("DONE");
            } finally {
                unit.close();
            }
        }
    }
}
