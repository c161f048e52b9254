package io.locked.it.process;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.locked.contract.CriticalSection;
import io.locked.contract.HistoryChecker;
import io.locked.contract.PermitHistoryChecker.PermitSection;
import io.locked.contract.ReadWriteHistoryChecker.Access;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Worker JVMs that each run a fixed number of locked cycles on one key ({@code LockWorker cycles}),
 * and what the history checker and the counter say afterwards. Each worker may get an environment
 * of its own (for instance a different database node). Workers that take permits or a read/write
 * lock write their sections with the row each held ({@link #permitSections}, {@link #readWriteSections}).
 */
public final class ExclusionRun {
    private ExclusionRun() {
    }

    /**
     * What the workers did.
     *
     * @param sections every critical section, from every worker
     * @param verdict  what the history checker found (overlaps, tokens not increasing), silent and signalled
     * @param counter  the counter's final value
     * @param seconds  how long the run took, JVM starts included
     */
    public record Outcome(List<CriticalSection> sections, HistoryChecker.Verdict verdict, long counter, double seconds) {
        /** @return every violation, silent or signalled */
        public List<String> violations() {
            List<String> all = new ArrayList<>(verdict.silent());
            all.addAll(verdict.signalled());
            return all;
        }

        /** @return how many of the violations are overlaps */
        public long overlaps() {
            return violations().stream().filter(v -> v.startsWith("overlap")).count();
        }

        /** @return the one-line summary the tests print */
        public String summary(String what, int expected) {
            return String.format("%s: %d cycles in %.1fs (with JVM start), %d overlaps (%d silent violations,"
                            + " %d signalled, %d holders told of a loss), counter %d of %d (%d lost updates), %.0f cycles/s",
                    what, sections.size(), seconds, overlaps(), verdict.silent().size(), verdict.signalled().size(),
                    verdict.lossesSignalled(), counter, expected, expected - counter, sections.size() / seconds);
        }
    }

    /**
     * What the workers recorded, for a checker of the caller's choice.
     *
     * @param sections every section, from every worker, as its history line was parsed
     * @param counter  the counter's final value
     * @param seconds  how long the run took, JVM starts included
     */
    public record Sections<T>(List<T> sections, long counter, double seconds) {
    }

    /**
     * Starts the workers, waits for all of them to exit with status 0, and checks their histories.
     *
     * @param dir          where histories and logs go
     * @param counterDb    where the key's counter is created and read at the end
     * @param environments one environment per worker
     * @param arguments    each worker's arguments, given its index and its history file
     */
    public static Outcome run(Path dir, CounterDatabase counterDb, String key, List<Map<String, String>> environments,
                              BiFunction<Integer, Path, List<String>> arguments) throws Exception {
        Sections<CriticalSection> run = run(dir, counterDb, key, environments, arguments, CriticalSection::parse);
        return new Outcome(run.sections(), HistoryChecker.check(run.sections()), run.counter(), run.seconds());
    }

    /**
     * Starts the workers, waits for all of them to exit with status 0, and reads their histories.
     *
     * @param parser what one line of a history is: {@link CriticalSection#parse}, {@link #permitSections()}
     *               or {@link #readWriteSections()}
     */
    public static <T> Sections<T> run(Path dir, CounterDatabase counterDb, String key, List<Map<String, String>> environments,
                                      BiFunction<Integer, Path, List<String>> arguments, Function<String, T> parser)
            throws Exception {
        try (Connection connection = counterDb.connect()) {
            Counter.create(connection, key);
        }
        List<WorkerProcess> workers = new ArrayList<>();
        List<Path> histories = new ArrayList<>();
        long started = System.nanoTime();
        try {
            for (int p = 0; p < environments.size(); p++) {
                Path history = dir.resolve("history-" + p + ".txt");
                histories.add(history);
                workers.add(WorkerProcess.start(dir.resolve("worker-" + p + ".log"), environments.get(p), line -> { },
                        arguments.apply(p, history).toArray(String[]::new)));
            }
            for (WorkerProcess worker : workers) {
                assertEquals(0, worker.waitForExit(600), () -> "worker failed:\n" + worker.logTail());
            }
        } finally {
            for (WorkerProcess worker : workers) {
                worker.close();
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        List<T> sections = new ArrayList<>();
        for (Path history : histories) {
            Files.readAllLines(history).forEach(line -> sections.add(parser.apply(line)));
        }
        long counter;
        try (Connection connection = counterDb.connect()) {
            counter = Counter.read(connection, key);
        }
        return new Sections<>(sections, counter, seconds);
    }

    /** @return the history line of a worker with {@code permits=N}: the slot held and the section */
    public static Function<String, PermitSection> permitSections() {
        return RowLines::parsePermit;
    }

    /** @return the history line of a worker with {@code write-percent=P}: read or write, the row held and the section */
    public static Function<String, Access> readWriteSections() {
        return RowLines::parseAccess;
    }

    /**
     * @param key       the key
     * @param cycleArgs further {@code name=value} arguments of {@code LockWorker cycles}
     * @return the arguments of a {@code cycles} worker on the key
     */
    public static BiFunction<Integer, Path, List<String>> cycles(String key, List<String> cycleArgs) {
        return (worker, history) -> {
            List<String> args = new ArrayList<>(List.of("cycles", "key=" + key, "history=" + history));
            args.addAll(cycleArgs);
            return args;
        };
    }

    /** Where the counter lives. */
    public interface CounterDatabase {
        Connection connect() throws Exception;
    }
}
