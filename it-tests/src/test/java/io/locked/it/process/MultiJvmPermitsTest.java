package io.locked.it.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockMode;
import io.locked.contract.CriticalSection;
import io.locked.contract.PermitHistoryChecker;
import io.locked.contract.PermitHistoryChecker.PermitSection;
import io.locked.jpa.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Three JVMs of four threads take permits of three on one key over and over, and one JVM is killed
 * (SIGKILL) while one of its threads holds a permit. Every section of every JVM, the killed one's up
 * to the kill, goes to the permit history checker, independent of the lock: each slot exclusive with
 * tokens increasing, never more than three inside at once, and at least two (the permits really run
 * side by side). The killed holder's slot comes back, pessimistic because its session died and the
 * database freed the row, optimistic because its lease ran out, and a survivor takes it. (Another
 * thread of the victim inside a permit at the kill leaves no record; its slot comes back the same way.)
 */
class MultiJvmPermitsTest {
    private static final int JVMS = 3;
    private static final int THREADS = 4;
    private static final int PERMITS = 3;
    private static final long LEASE_MILLIS = 2500;
    private static final int CYCLES_BEFORE_KILL = 30;
    private static final int CYCLES_AFTER_KILL = 50;
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final int VICTIM = 0;
    private static final List<Integer> SURVIVORS = List.of(1, 2);

    @TempDir
    Path dir;

    // each database in one mode here and in the other in MultiJvmReadWriteTest: the suite's time
    // (all four pairs passed when the test was written)
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"MARIADB, PESSIMISTIC", "POSTGRESQL, OPTIMISTIC"})
    void threePermitsAcrossThreeJvmsOutliveAKilledHolder(TestDatabase database, LockMode mode) throws Exception {
        database.requireReachable();
        String key = "it:permits:" + mode + ":" + UUID.randomUUID();
        database.open(2).close(); // the lock table exists before the workers start
        try (Connection connection = database.connect()) {
            Counter.create(connection, key);
        }
        WorkerLines<PermitSection> events = new WorkerLines<>("PERMIT", RowLines::parsePermit, PATIENCE);
        List<WorkerProcess> workers = new ArrayList<>();
        long started = System.nanoTime();
        try {
            for (int w = 0; w < JVMS; w++) {
                workers.add(WorkerProcess.start(dir.resolve("worker-" + w + ".log"), database.workerEnvironment(),
                        events.sink(w), "cycles", "database=" + database.name(), "mode=" + mode, "key=" + key,
                        "threads=" + THREADS, "permits=" + PERMITS, "lease-millis=" + LEASE_MILLIS,
                        "history=" + dir.resolve("history-" + w + ".txt")));
            }
            for (int w = 0; w < JVMS; w++) {
                awaitReady(events, w, started);
            }
            events.await("cycles from every JVM",
                    all -> events.each(all, List.of(0, 1, 2), CYCLES_BEFORE_KILL, permit -> true));

            WorkerProcess victim = workers.get(VICTIM);
            victim.send("gate");
            WorkerLines.Line<PermitSection> gated = events.await("a thread of the victim inside its permit",
                    all -> all.stream().filter(e -> e.worker() == VICTIM && e.is("GATED")).findFirst().orElse(null));
            long killedAt = victim.kill();
            // the killed holder was inside from its entry until the signal: no code of its ran after it
            PermitSection killed = new PermitSection(RowLines.decode(gated.field(4)), new CriticalSection(victim.pid()
                    + "/" + gated.field(1), Long.parseLong(gated.field(2)), Long.parseLong(gated.field(3)), killedAt));

            PermitSection retaken = events.await("the killed holder's slot taken again", all -> all.stream()
                    .filter(e -> e.is("PERMIT") && e.section().slot().equals(killed.slot())
                            && e.section().section().enterNanos() > killedAt)
                    .map(WorkerLines.Line::section).findFirst().orElse(null));
            events.await(CYCLES_AFTER_KILL + " cycles from each survivor after the kill", all -> events.each(all,
                    SURVIVORS, CYCLES_AFTER_KILL, permit -> permit.section().enterNanos() > killedAt));
            for (int w : SURVIVORS) {
                workers.get(w).send("stop");
            }
            for (int w : SURVIVORS) {
                WorkerProcess survivor = workers.get(w);
                assertEquals(0, survivor.waitForExit(PATIENCE.toSeconds()), "survivor failed:\n" + survivor.logTail());
                // its threads print their sections in whatever order they finish
                assertEquals(byEntry(Files.readAllLines(dir.resolve("history-" + w + ".txt")).stream()
                        .map(RowLines::parsePermit).toList()), byEntry(events.sections(w)),
                        "survivor " + w + " printed every section it recorded");
            }
            // the victim's sections are those it printed before it died, and the one it died in
            List<PermitSection> sections = new ArrayList<>(List.of(killed));
            for (int w = 0; w < JVMS; w++) {
                sections.addAll(events.sections(w));
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            List<WorkerLines.Line<PermitSection>> troubles = events.all().stream()
                    .filter(e -> !e.is("READY") && !e.is("PERMIT") && !e.is("DONE") && !e.is("GATED")).toList();
            PermitHistoryChecker.Verdict verdict = PermitHistoryChecker.check(sections, PERMITS);
            System.out.printf("multi-JVM permits %s %s, %d JVMs x %d threads, %d permits: %d sections in %.1fs (with JVM"
                            + " start), at most %d inside at once; slot %s killed inside at %.1fs (token %d) and taken"
                            + " again %d ms after the kill (token %d); %d silent violations, %d signalled, %d troubles%n",
                    database, mode, JVMS, THREADS, PERMITS, sections.size(), seconds, verdict.mostInsideAtOnce(),
                    killed.slot().replace('\u001F', '#'), (killedAt - started) / 1e9, killed.section().token(),
                    (retaken.section().enterNanos() - killedAt) / 1_000_000, retaken.section().token(),
                    verdict.silent().size(), verdict.signalled().size(), troubles.size());

            assertEquals(List.of(), verdict.silent(), "silent violations");
            assertEquals(List.of(), troubles, "failed, late or lost acquisitions, failed closes");
            assertTrue(verdict.mostInsideAtOnce() >= 2, "the permits never ran side by side: " + verdict.mostInsideAtOnce());
            assertTrue(verdict.mostInsideAtOnce() <= PERMITS, "more inside than permits: " + verdict.mostInsideAtOnce());
            assertTrue(retaken.section().token() > killed.section().token(), "the killed slot's next token must be higher");
        } finally {
            workers.forEach(WorkerProcess::close);
        }
    }

    // The checker compares System.nanoTime() across JVMs: this worker's reading must lie between two
    // of this JVM's, as it does when both read the machine's one monotonic clock.
    private static void awaitReady(WorkerLines<PermitSection> events, int worker, long before) throws InterruptedException {
        WorkerLines.Line<PermitSection> ready = events.await("READY from worker " + worker,
                all -> all.stream().filter(e -> e.worker() == worker && e.is("READY")).findFirst().orElse(null));
        long theirs = Long.parseLong(ready.field(1));
        assertTrue(theirs >= before && theirs <= System.nanoTime(), "worker " + worker + " does not share this JVM's clock");
    }

    private static List<PermitSection> byEntry(List<PermitSection> sections) {
        return sections.stream().sorted(Comparator.comparingLong(permit -> permit.section().enterNanos())).toList();
    }
}
