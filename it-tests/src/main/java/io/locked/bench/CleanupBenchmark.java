package io.locked.bench;

import io.locked.bench.AcquireLoad.Latencies;
import io.locked.bench.CleanupMeasurement.Run;
import io.locked.jpa.LockStatements;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The cleanup of a million idle rows while other keys are acquired ({@link CleanupMeasurement}),
 * per database: the acquirers' p50/p99/max before and during the cleanup, and the cleanup's rows,
 * time and rows per second. Run on its own (this main) or as the last section of {@link Benchmark}
 * ({@code -Dbench.cleanup=true}). Its databases are its own ({@code locked_cleanup_bench}, which
 * .ci/run creates; {@link BenchDatabase#cleanupPool}).
 *
 * <p>System properties: {@code bench.databases} (mariadb), {@code bench.cleanup.rows} (1000000; at
 * most that on MariaDB), {@code bench.cleanup.threads} (4), {@code bench.cleanup.seconds} of
 * baseline (10), {@code bench.cleanup.statements} (auto, or jpa), {@code bench.cleanup.out}
 * (target/cleanup-benchmark.md).
 */
public final class CleanupBenchmark {
    private static final Duration WARM_UP = Duration.ofSeconds(2);

    private CleanupBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        List<BenchDatabase> databases = Arrays.stream(Benchmark.property("bench.databases", "mariadb").split(","))
                .map(name -> BenchDatabase.valueOf(name.trim().toUpperCase(Locale.ROOT))).toList();
        StringBuilder report = new StringBuilder("## Cleanup benchmark, " + Instant.now() + "\n\n"
                + "Java " + Runtime.version() + ", " + Runtime.getRuntime().availableProcessors() + " cores.\n");
        for (BenchDatabase database : databases) {
            report.append(section(database));
        }
        Path out = Path.of(Benchmark.property("bench.cleanup.out", "target/cleanup-benchmark.md"));
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, report);
        System.out.println(report);
        System.out.println("Written to " + out.toAbsolutePath());
    }

    /** The measurement on one database, as a Markdown section, with the settings from the system properties. */
    static String section(BenchDatabase database) throws Exception {
        int rows = Integer.parseInt(Benchmark.property("bench.cleanup.rows", "1000000"));
        int threads = Integer.parseInt(Benchmark.property("bench.cleanup.threads", "4"));
        Duration baseline = Duration.ofMillis((long) (1000 * Double.parseDouble(Benchmark.property("bench.cleanup.seconds", "10"))));
        LockStatements statements = LockStatements.valueOf(Benchmark.property("bench.cleanup.statements", "auto")
                .toUpperCase(Locale.ROOT));
        List<Run> runs = new CleanupMeasurement(database, rows, threads, WARM_UP, baseline, statements).run();
        Report report = new Report();
        report.heading(String.format(Locale.ROOT, "%s: cleanup of %,d idle rows (%s path) while %d threads acquire"
                + " and release a key each", database, rows, statements.name().toLowerCase(Locale.ROOT), threads));
        report.line("Acquire latency (the `acquire` call alone) in µs; the baseline is " + baseline.toSeconds()
                + " s before the cleanup, after " + WARM_UP.toSeconds() + " s unrecorded.");
        report.line("");
        report.line("| acquirers' mode | when | acquisitions | p50 µs | p99 µs | max µs | errors |");
        report.line("|---|---|---:|---:|---:|---:|---:|");
        for (Run run : runs) {
            report.line(latencyRow(run.mode().name().toLowerCase(Locale.ROOT), "before (baseline)", run.before()));
            report.line(latencyRow(run.mode().name().toLowerCase(Locale.ROOT), "during the cleanup", run.during()));
        }
        report.line("");
        report.line("| acquirers' mode | fill s | rows deleted | cleanup s | rows/s | rows left | load average at start, end |");
        report.line("|---|---:|---:|---:|---:|---:|---|");
        for (Run run : runs) {
            report.line(String.format(Locale.ROOT, "| %s | %.1f | %,d | %.1f | %,.0f | %d | %.1f, %.1f |",
                    run.mode().name().toLowerCase(Locale.ROOT), run.fillSeconds(), run.deleted(), run.cleanupSeconds(),
                    run.rowsPerSecond(), run.rowsLeft(), run.loadAtStart(), run.loadAtEnd()));
        }
        return report.toString();
    }

    private static String latencyRow(String mode, String when, Latencies latencies) {
        return String.format(Locale.ROOT, "| %s | %s | %,d | %.0f | %.0f | %.0f | %d%s |", mode, when, latencies.count(),
                latencies.p50(), latencies.p99(), latencies.max(), latencies.errors(),
                latencies.firstError() == null ? "" : " (" + latencies.firstError() + ")");
    }
}
