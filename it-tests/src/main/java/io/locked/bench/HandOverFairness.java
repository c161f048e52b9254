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
 * The hot key's fairness to other JVMs: one lock manager (the hammering JVM, its own pool and queue) cycles
 * 16 threads on one key, {@code PESSIMISTIC}, while a second manager (the other JVM, a pool and queue of its
 * own) asks for the same key every 20 ms from one thread and counts how long each of its acquisitions waited.
 * Twice per database: with clock tokens, where the hammering JVM passes the row from thread to thread in runs
 * of 0.5-1 s, and with written tokens, where each of its holders commits and the next locks anew.
 *
 * <p>Run with {@code mvn -q -Pbench -DskipTests verify -pl it-tests -am
 * -Dbench.main=io.locked.bench.HandOverFairness}. System properties: {@code bench.databases} (mariadb,postgresql),
 * {@code bench.fairness.seconds} (20), {@code bench.fairness.out} (target/hand-over-fairness.md).
 */
public final class HandOverFairness {
    private static final int HAMMERING_THREADS = 16;
    private static final long ASK_EVERY_MILLIS = 20;

    private HandOverFairness() {
    }

    /**
     * @param cycles    the hammering JVM's acquisitions in the window
     * @param waitsNanos how long each of the other JVM's acquisitions waited
     */
    record Run(LockTokens tokens, long cycles, long windowNanos, long[] waitsNanos) {
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
        List<BenchDatabase> databases = Arrays.stream(Benchmark.property("bench.databases", "mariadb,postgresql").split(","))
                .map(name -> BenchDatabase.valueOf(name.trim().toUpperCase(Locale.ROOT))).toList();
        Duration window = Duration.ofSeconds(Long.parseLong(Benchmark.property("bench.fairness.seconds", "20")));
        StringBuilder report = new StringBuilder("## The hot key's fairness to another JVM, " + Instant.now() + "\n\n"
                + "Java " + Runtime.version() + ", " + Runtime.getRuntime().availableProcessors() + " cores; one manager"
                + " cycles " + HAMMERING_THREADS + " threads on one key (`PESSIMISTIC`, an empty critical section), another"
                + " manager with a pool of its own asks for the key every " + ASK_EVERY_MILLIS + " ms from one thread; "
                + window.toSeconds() + " s per row.\n\n"
                + "| database | tokens | hammering JVM, cycles/s | other JVM's acquisitions | its wait p50 ms | p99 ms | max ms |\n"
                + "|---|---|---:|---:|---:|---:|---:|\n");
        for (BenchDatabase database : databases) {
            for (LockTokens tokens : List.of(LockTokens.CLOCK, LockTokens.WRITTEN)) {
                Run run = run(database, tokens, window);
                report.append(String.format(Locale.ROOT, "| %s | %s | %.0f | %d | %.1f | %.1f | %.1f |%n", database,
                        tokens == LockTokens.CLOCK ? "clock (row hand-over)" : "written", run.cyclesPerSecond(),
                        run.waitsNanos().length, run.waitMillis(0.5), run.waitMillis(0.99), run.waitMillis(1.0)));
            }
        }
        Path out = Path.of(Benchmark.property("bench.fairness.out", "target/hand-over-fairness.md"));
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, report);
        System.out.println(report);
        System.out.println("Written to " + out.toAbsolutePath());
    }

    private static Run run(BenchDatabase database, LockTokens tokens, Duration window) throws Exception {
        String key = "fairness-bench-" + tokens + "-" + System.nanoTime();
        try (HikariDataSource hammeringPool = database.pool(HAMMERING_THREADS + 4);
             HikariDataSource otherPool = database.pool(4)) {
            EntityManagerFactory hammeringUnit = database.entityManagerFactory(hammeringPool);
            EntityManagerFactory otherUnit = database.entityManagerFactory(otherPool);
            try {
                JpaLockRepository hammeringStore = JpaLockRepository.builder(hammeringUnit).tokens(tokens).build();
                hammeringStore.createTableIfMissing();
                JpaLockRepository otherStore = JpaLockRepository.builder(otherUnit).tokens(tokens).build();
                return measure(key, hammeringStore, otherStore, tokens, window);
            } finally {
                hammeringUnit.close();
                otherUnit.close();
            }
        }
    }

    private static Run measure(String key, JpaLockRepository hammeringStore, JpaLockRepository otherStore,
                               LockTokens tokens, Duration window) throws Exception {
        LockRequest request = LockRequest.of(key).mode(LockMode.PESSIMISTIC).maxWait(Duration.ofSeconds(60));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong cycles = new AtomicLong();
        ExecutorService threads = Executors.newFixedThreadPool(HAMMERING_THREADS);
        try (LockManager hammering = LockManagerBuilder.on(hammeringStore).build();
             LockManager other = LockManagerBuilder.on(otherStore).build()) {
            List<Future<?>> hammers = new ArrayList<>();
            for (int t = 0; t < HAMMERING_THREADS; t++) {
                hammers.add(threads.submit(() -> {
                    while (!stop.get()) {
                        try (LockHandle held = hammering.acquire(request)) {
                            cycles.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            Thread.sleep(1000); // warm-up: the hammering runs at its pace before the other JVM asks
            long counted = cycles.get();
            long start = System.nanoTime();
            List<Long> waits = new ArrayList<>();
            while (System.nanoTime() - start < window.toNanos()) {
                long asked = System.nanoTime();
                try (LockHandle held = other.acquire(request)) {
                    waits.add(System.nanoTime() - asked);
                }
                Thread.sleep(ASK_EVERY_MILLIS);
            }
            long windowNanos = System.nanoTime() - start;
            long hammered = cycles.get() - counted;
            stop.set(true);
            for (Future<?> hammer : hammers) {
                hammer.get(60, TimeUnit.SECONDS);
            }
            return new Run(tokens, hammered, windowNanos, waits.stream().mapToLong(Long::longValue).toArray());
        } finally {
            threads.shutdownNow();
        }
    }
}
