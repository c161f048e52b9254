package io.locked.it.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockMode;
import io.locked.contract.CriticalSection;
import io.locked.contract.HistoryChecker;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Three JVMs of eight threads each take one key over and over. Every critical section is written
 * down by the worker and checked here, independently of the lock's own state: no overlap, tokens
 * strictly increasing, and a counter incremented by a non-atomic read-then-write ends exact.
 */
class MultiJvmExclusionTest {
    private static final int PROCESSES = 3;
    private static final int THREADS = 8;
    private static final int CYCLES = 20;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"MARIADB, PESSIMISTIC", "MARIADB, OPTIMISTIC", "POSTGRESQL, PESSIMISTIC", "POSTGRESQL, OPTIMISTIC"})
    void processesNeverOverlapOnOneKey(TestDatabase database, LockMode mode) throws Exception {
        Outcome outcome = run(database, "cycles", mode.name());
        assertExclusive(outcome);
    }

    /** The same through a {@code @Locked} bean on Weld SE in each JVM. */
    @ParameterizedTest(name = "@Locked {0} {1}")
    @CsvSource({"MARIADB, PESSIMISTIC", "MARIADB, OPTIMISTIC"})
    void lockedBeansInProcessesNeverOverlap(TestDatabase database, LockMode mode) throws Exception {
        Outcome outcome = run(database, "locked-bean", mode.name());
        assertExclusive(outcome);
    }

    /** The negative control: without the lock the same harness must find overlaps. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"MARIADB"})
    void withoutTheLockTheCheckerFindsOverlaps(TestDatabase database) throws Exception {
        Outcome outcome = run(database, "unlocked", "-");
        assertEquals(PROCESSES * THREADS * CYCLES, outcome.sections().size(), "cycles recorded");
        assertTrue(outcome.violations().stream().anyMatch(v -> v.startsWith("overlap")),
                "24 unlocked threads in 3 JVMs produced no overlap: the harness cannot see a broken lock");
    }

    private static void assertExclusive(Outcome outcome) {
        assertEquals(PROCESSES * THREADS * CYCLES, outcome.sections().size(), "cycles recorded");
        assertEquals(List.of(), outcome.violations());
        assertEquals(PROCESSES * THREADS * CYCLES, outcome.counter(), "the counter lost increments");
    }

    private record Outcome(List<CriticalSection> sections, List<String> violations, long counter) {
    }

    private Outcome run(TestDatabase database, String command, String mode) throws Exception {
        String key = "it:exclusion:" + command + ":" + mode + ":" + UUID.randomUUID();
        try (Store store = database.open(2)) {
            createCounter(store, key);

            List<WorkerProcess> workers = new ArrayList<>();
            List<Path> histories = new ArrayList<>();
            long started = System.nanoTime();
            try {
                for (int p = 0; p < PROCESSES; p++) {
                    Path history = dir.resolve("history-" + p + ".txt");
                    histories.add(history);
                    workers.add(start(p, command, database, mode, key, history));
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

            List<CriticalSection> sections = new ArrayList<>();
            for (Path history : histories) {
                Files.readAllLines(history).forEach(line -> sections.add(CriticalSection.parse(line)));
            }
            List<String> violations = HistoryChecker.violations(sections);
            long counter;
            try (Connection connection = store.pool().getConnection()) {
                counter = Counter.read(connection, key);
            }
            System.out.printf("multi-JVM %s %s %s: %d processes x %d threads, %d cycles in %.1fs (with JVM start),"
                            + " overlaps/token violations %d, counter %d of %d%n",
                    command, database, mode, PROCESSES, THREADS, sections.size(), seconds, violations.size(), counter,
                    PROCESSES * THREADS * CYCLES);
            return new Outcome(sections, violations, counter);
        }
    }

    private WorkerProcess start(int index, String command, TestDatabase database, String mode, String key, Path history)
            throws Exception {
        Path log = dir.resolve("worker-" + index + ".log");
        String[] args = command.equals("locked-bean")
                ? new String[] {command, database.name(), mode, key, String.valueOf(THREADS), String.valueOf(CYCLES), history.toString()}
                : new String[] {"cycles", "database=" + database.name(), "mode=" + mode, "key=" + key,
                        "threads=" + THREADS, "cycles=" + CYCLES, "history=" + history};
        return WorkerProcess.start(log, args);
    }

    private static void createCounter(Store store, String key) throws Exception {
        try (Connection connection = store.pool().getConnection()) {
            Counter.create(connection, key);
        }
    }
}
