package io.locked.bench;

import io.locked.bench.Runner.Result;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;

/** Renders one database's results as Markdown, with the ratios the targets are stated in. */
final class Report {
    private final StringBuilder out = new StringBuilder();

    void heading(String text) {
        out.append("\n### ").append(text).append("\n\n");
    }

    void line(String text) {
        out.append(text).append('\n');
    }

    void cases(List<Result> results) {
        line("| case | threads | keys | cycles/s | JVM CPU µs/cycle | log flushes/cycle | p50 µs | p99 µs | p99.9 µs | hand-off p50 µs | violations | errors | × raw | × API | API ÷ peer |");
        line("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (Result r : results) {
            Case c = r.benchCase();
            String vsRaw = c.layer().equals(Case.API) || c.layer().equals(Case.API_JPA_PATH)
                    || c.layer().equals(Case.API_CLOCK_TOKENS) || c.layer().equals(Case.API_LEASE_KEEP) || c.peer()
                    ? ratio(r, results, Case.RAW) + " (" + ratio(r, results, Case.RAW_WITH_TOKEN) + " with token)" : "";
            String vsApi = c.layer().equals(Case.LOCKED) || c.layer().equals(Case.API_JPA_PATH)
                    ? ratio(r, results, Case.API) : "";
            // the issue states its peer targets as Locked's throughput over the peer's
            String apiOverPeer = c.peer() ? find(results, r, Case.API).map(api -> String.format(Locale.ROOT, "%.2f",
                    api.cyclesPerSecond() / r.cyclesPerSecond())).orElse("") : "";
            line(String.format(Locale.ROOT, "| %s | %d | %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %d | %s | %s | %s |",
                    c.name(), r.threads(), r.contended() ? "one" : "one per thread", r.cyclesPerSecond(),
                    micros(r.cpuMicros()),
                    Double.isNaN(r.logFlushesPerCycle()) ? "" : String.format(Locale.ROOT, "%.2f", r.logFlushesPerCycle()),
                    micros(r.p50()), micros(r.p99()), micros(r.p999()),
                    r.contended() && r.threads() > 1 && c.locks() ? micros(r.handOffP50()) : "",
                    c.locks() ? String.valueOf(r.violations()) : "", r.errors(), vsRaw, vsApi, apiOverPeer));
        }
    }

    /**
     * The read/write cases' waits, reads and writes apart: the issue asks for the writer's p99 wait
     * under read load, which the cycle latencies of {@link #cases} mix with the reads'.
     */
    void waits(List<Result> results) {
        line("| case | threads | keys | cycles/s | reads | reads' wait p50 µs | reads' wait p99 µs | writes | writes' wait p50 µs | writes' wait p99 µs |");
        line("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|");
        for (Result r : results) {
            if (r.waits() != null) {
                line(String.format(Locale.ROOT, "| %s | %d | %s | %.0f | %d | %s | %s | %d | %s | %s |", r.benchCase().name(),
                        r.threads(), r.contended() ? "one" : "one per thread", r.cyclesPerSecond(), r.waits().reads(),
                        micros(r.waits().readP50()), micros(r.waits().readP99()), r.waits().writes(),
                        micros(r.waits().writeP50()), micros(r.waits().writeP99())));
            }
        }
    }

    /** The targets of the issue, as measured ratios and bounds, each marked met or missed. */
    void targets(List<Result> results) {
        line("| target | measured (worst cell) | met |");
        line("|---|---:|---|");
        ratioTarget(results, "pessimistic API ≥ 0.8 × raw", "pessimistic", Case.API, Case.RAW, 0.8);
        ratioTarget(results, "pessimistic API with clock tokens ≥ 0.8 × raw", "pessimistic", Case.API_CLOCK_TOKENS,
                Case.RAW, 0.8);
        ratioTarget(results, "(reference) pessimistic API ≥ 0.8 × raw with a token write", "pessimistic", Case.API,
                Case.RAW_WITH_TOKEN, 0.8);
        ratioTarget(results, "optimistic API ≥ 0.9 × raw", "optimistic", Case.API, Case.RAW, 0.9);
        ratioTarget(results, "(reference) optimistic API ≥ 0.9 × raw with a token", "optimistic", Case.API,
                Case.RAW_WITH_TOKEN, 0.9);
        ratioTarget(results, "pessimistic @Locked ≥ 0.95 × API", "pessimistic", Case.LOCKED, Case.API, 0.95);
        ratioTarget(results, "optimistic @Locked ≥ 0.95 × API", "optimistic", Case.LOCKED, Case.API, 0.95);
        handOffTarget(results, "pessimistic", 1000);
        handOffTarget(results, "optimistic", 5000);
        peerTarget(results, "optimistic API ≥ 1.8 × ShedLock, a key per thread", Case.API, Case.SHEDLOCK, false, 1.8);
        peerTarget(results, "optimistic API ≥ 2.5 × ShedLock, one key", Case.API, Case.SHEDLOCK, true, 2.5);
        peerTarget(results, "optimistic API with a lease keep ≥ 1.8 × ShedLock, a key per thread", Case.API_LEASE_KEEP,
                Case.SHEDLOCK, false, 1.8);
        peerTarget(results, "optimistic API with a lease keep ≥ 2.5 × ShedLock, one key", Case.API_LEASE_KEEP, Case.SHEDLOCK,
                true, 2.5);
        peerTarget(results, "(reference) optimistic API ÷ Spring JdbcLockRegistry, a key per thread", Case.API,
                Case.SPRING_JDBC, false, Double.NaN);
        peerTarget(results, "(reference) optimistic API ÷ Spring JdbcLockRegistry, one key", Case.API, Case.SPRING_JDBC,
                true, Double.NaN);
    }

    /**
     * The JVM's CPU per cycle of each lock beside its raw forms', per mode and cell: on a machine
     * whose cores the application shares with the database, that CPU is throughput.
     */
    void cpu(List<Result> results) {
        List<String> layers = List.of(Case.RAW, Case.RAW_WITH_TOKEN, Case.API, Case.LOCKED, Case.API_JPA_PATH,
                Case.SHEDLOCK, Case.SPRING_JDBC);
        line("| mode | threads | keys | raw | raw with token | API | @Locked | API, JPA path | ShedLock | Spring JdbcLockRegistry | API ÷ raw with token |");
        line("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (String mode : List.of("pessimistic", "optimistic")) {
            results.stream().filter(r -> r.benchCase().mode().equals(mode) && r.benchCase().layer().equals(Case.API))
                    .forEach(api -> {
                        StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "| %s | %d | %s |", mode,
                                api.threads(), api.contended() ? "one" : "one per thread"));
                        for (String layer : layers) {
                            row.append(' ').append(find(results, api, layer).map(r -> micros(r.cpuMicros()) + " ("
                                    + micros(r.cyclingUserMicros()) + ")").orElse("")).append(" |");
                        }
                        row.append(' ').append(find(results, api, Case.RAW_WITH_TOKEN).map(raw -> String.format(
                                Locale.ROOT, "%.2f", api.cpuMicros() / raw.cpuMicros())).orElse("")).append(" |");
                        line(row.toString());
                    });
        }
    }

    void rows(String name, double smallP50, double largeP50, double smallRate, double largeRate) {
        double ratio = largeP50 / smallP50;
        // the target is the lock's; the raw forms are there to show the database's own growth
        String met = !name.startsWith("raw") ? ratio <= 1.10 ? "yes" : "no" : "(reference)";
        line(String.format(Locale.ROOT, "| %s | %s | %s | %.0f | %.0f | %.2f | %s |", name, micros(smallP50),
                micros(largeP50), smallRate, largeRate, ratio, met));
    }

    private void ratioTarget(List<Result> results, String label, String mode, String layer, String base, double bound) {
        double worst = Double.MAX_VALUE;
        for (Result r : results) {
            if (r.benchCase().mode().equals(mode) && r.benchCase().layer().equals(layer)) {
                Optional<Result> baseline = find(results, r, base);
                if (baseline.isPresent()) {
                    worst = Math.min(worst, r.cyclesPerSecond() / baseline.get().cyclesPerSecond());
                }
            }
        }
        if (worst == Double.MAX_VALUE) {
            // a narrowed run (-Dbench.cases) may leave out one side of the ratio: no verdict then
            line("| " + label + " | not measured (a case of the ratio was left out) |  |");
            return;
        }
        line(String.format(Locale.ROOT, "| %s | %.2f | %s |", label, worst, worst >= bound ? "yes" : "no"));
    }

    /**
     * The optimistic API's throughput over a peer's, the worst of the cells on a key per thread or
     * on one key; a NaN bound makes it a reference without a verdict.
     */
    private void peerTarget(List<Result> results, String label, String apiLayer, String peerLayer, boolean contended,
                            double bound) {
        double worst = Double.MAX_VALUE;
        for (Result peer : results) {
            if (peer.benchCase().layer().equals(peerLayer) && peer.contended() == contended) {
                Optional<Result> api = find(results, peer, apiLayer);
                if (api.isPresent()) {
                    worst = Math.min(worst, api.get().cyclesPerSecond() / peer.cyclesPerSecond());
                }
            }
        }
        if (worst == Double.MAX_VALUE) {
            line("| " + label + " | not measured (a case of the ratio was left out) |  |");
            return;
        }
        line(String.format(Locale.ROOT, "| %s | %.2f | %s |", label, worst,
                Double.isNaN(bound) ? "(reference)" : worst >= bound ? "yes" : "no"));
    }

    private void handOffTarget(List<Result> results, String mode, double boundMicros) {
        Predicate<Result> apiContended = r -> r.benchCase().mode().equals(mode)
                && r.benchCase().layer().equals(Case.API) && r.contended() && r.threads() > 1;
        double worst = results.stream().filter(apiContended).mapToDouble(Result::handOffP50).max().orElse(Double.NaN);
        line(String.format(Locale.ROOT, "| %s hand-off p50 ≤ %.0f ms | %s | %s |", mode, boundMicros / 1000,
                Double.isNaN(worst) ? "not measured (needs 2+ threads)" : micros(worst) + " µs",
                Double.isNaN(worst) ? "" : worst <= boundMicros ? "yes" : "no"));
    }

    private static String ratio(Result r, List<Result> results, String baseLayer) {
        return find(results, r, baseLayer)
                .map(base -> String.format(Locale.ROOT, "%.2f", r.cyclesPerSecond() / base.cyclesPerSecond()))
                .orElse("");
    }

    private static Optional<Result> find(List<Result> results, Result like, String layer) {
        return results.stream().filter(r -> r.benchCase().layer().equals(layer)
                && r.benchCase().mode().equals(like.benchCase().mode())
                && r.threads() == like.threads() && r.contended() == like.contended()).findFirst();
    }

    private static String micros(double value) {
        return Double.isNaN(value) ? "" : String.format(Locale.ROOT, value < 100 ? "%.1f" : "%.0f", value);
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
