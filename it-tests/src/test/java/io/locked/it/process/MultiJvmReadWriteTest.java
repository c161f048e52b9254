package io.locked.it.process;

import io.locked.spi.LockRows;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.contract.CriticalSection;
import io.locked.contract.ReadWriteHistoryChecker;
import io.locked.contract.ReadWriteHistoryChecker.Access;
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
 * Three JVMs of four threads read and write one key's read/write lock over and over, a quarter of
 * the cycles writes, and one JVM is killed (SIGKILL) while one of its threads is inside a write.
 * Every section of every JVM, the killed writer's up to the kill, goes to the read/write history
 * checker, independent of the lock: no writer overlaps any other section, each writer's token is above
 * every earlier section's, no reader slot is held twice at once, and at least two readers were inside
 * at once (readers really share the key). The killed writer's row comes back, pessimistic because its
 * session died and the database freed the row, optimistic because its lease ran out, and the survivors
 * both write and read again. While the killed writer was inside no other section was, so the history
 * around the kill is complete.
 */
class MultiJvmReadWriteTest {
    private static final int JVMS = 3;
    private static final int THREADS = 4;
    private static final int WRITE_PERCENT = 25;
    private static final long LEASE_MILLIS = 2500;
    private static final int CYCLES_BEFORE_KILL = 30;
    private static final int CYCLES_AFTER_KILL = 50;
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final int VICTIM = 0;
    private static final List<Integer> SURVIVORS = List.of(1, 2);

    @TempDir
    Path dir;

    // each database in one mode here and in the other in MultiJvmPermitsTest: the suite's time
    // (all four pairs passed when the test was written)
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"MARIADB, OPTIMISTIC", "POSTGRESQL, PESSIMISTIC"})
    void readersAndWritersAcrossThreeJvmsOutliveAKilledWriter(TestDatabase database, LockMode mode) throws Exception {
        database.requireReachable();
        String key = "it:read-write:" + mode + ":" + UUID.randomUUID();
        database.open(2).close(); // the lock table exists before the workers start
        try (Connection connection = database.connect()) {
            Counter.create(connection, key);
        }
        WorkerLines<Access> events = new WorkerLines<>("ACCESS", RowLines::parseAccess, PATIENCE);
        List<WorkerProcess> workers = new ArrayList<>();
        long started = System.nanoTime();
        try {
            for (int w = 0; w < JVMS; w++) {
                workers.add(WorkerProcess.start(dir.resolve("worker-" + w + ".log"), database.workerEnvironment(),
                        events.sink(w), "cycles", "database=" + database.name(), "mode=" + mode, "key=" + key,
                        "threads=" + THREADS, "write-percent=" + WRITE_PERCENT, "lease-millis=" + LEASE_MILLIS,
                        "history=" + dir.resolve("history-" + w + ".txt")));
            }
            for (int w = 0; w < JVMS; w++) {
                awaitReady(events, w, started);
            }
            events.await("cycles from every JVM",
                    all -> events.each(all, List.of(0, 1, 2), CYCLES_BEFORE_KILL, access -> true));

            WorkerProcess victim = workers.get(VICTIM);
            victim.send("gate-writer");
            WorkerLines.Line<Access> gated = events.await("a thread of the victim inside a write",
                    all -> all.stream().filter(e -> e.worker() == VICTIM && e.is("GATED")).findFirst().orElse(null));
            long killedAt = victim.kill();
            // the killed writer was inside from its entry until the signal: no code of its ran after it
            Access killed = new Access(true, RowLines.decode(gated.field(4)), new CriticalSection(victim.pid() + "/"
                    + gated.field(1), Long.parseLong(gated.field(2)), Long.parseLong(gated.field(3)), killedAt));

            Access firstWrite = events.await("a survivor's write after the kill", all -> firstAfter(all, killedAt, true));
            Access firstRead = events.await("a survivor's read after the kill", all -> firstAfter(all, killedAt, false));
            events.await(CYCLES_AFTER_KILL + " cycles from each survivor after the kill", all -> events.each(all,
                    SURVIVORS, CYCLES_AFTER_KILL, access -> access.section().enterNanos() > killedAt));
            for (int w : SURVIVORS) {
                workers.get(w).send("stop");
            }
            for (int w : SURVIVORS) {
                WorkerProcess survivor = workers.get(w);
                assertEquals(0, survivor.waitForExit(PATIENCE.toSeconds()), "survivor failed:\n" + survivor.logTail());
                // its threads print their sections in whatever order they finish
                assertEquals(byEntry(Files.readAllLines(dir.resolve("history-" + w + ".txt")).stream()
                        .map(RowLines::parseAccess).toList()), byEntry(events.sections(w)),
                        "survivor " + w + " printed every section it recorded");
            }
            // the victim's sections are those it printed before it died, and the one it died in
            List<Access> accesses = new ArrayList<>(List.of(killed));
            for (int w = 0; w < JVMS; w++) {
                accesses.addAll(events.sections(w));
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            List<WorkerLines.Line<Access>> troubles = events.all().stream()
                    .filter(e -> !e.is("READY") && !e.is("ACCESS") && !e.is("DONE") && !e.is("GATED")).toList();
            ReadWriteHistoryChecker.Verdict verdict = ReadWriteHistoryChecker.check(accesses);
            long writes = accesses.stream().filter(Access::writer).count();
            System.out.printf("multi-JVM read/write %s %s, %d JVMs x %d threads, %d%% writes: %d sections (%d writes) in"
                            + " %.1fs (with JVM start), at most %d readers at once; writer killed inside at %.1fs (token"
                            + " %d), a survivor wrote %d ms after the kill (token %d) and read %d ms after it; %d silent"
                            + " violations, %d signalled, %d troubles%n",
                    database, mode, JVMS, THREADS, WRITE_PERCENT, accesses.size(), writes, seconds,
                    verdict.mostReadersAtOnce(), (killedAt - started) / 1e9, killed.section().token(),
                    (firstWrite.section().enterNanos() - killedAt) / 1_000_000, firstWrite.section().token(),
                    (firstRead.section().enterNanos() - killedAt) / 1_000_000, verdict.silent().size(),
                    verdict.signalled().size(), troubles.size());

            assertEquals(List.of(), verdict.silent(), "silent violations");
            assertEquals(List.of(), troubles, "failed, late or lost acquisitions, failed closes");
            assertTrue(verdict.mostReadersAtOnce() >= 2, "the readers never shared the key: " + verdict.mostReadersAtOnce());
            assertEquals(LockRows.writer(key), killed.row(), "the killed holder held the writer row");
        } finally {
            workers.forEach(WorkerProcess::close);
        }
    }

    // The checker compares System.nanoTime() across JVMs: this worker's reading must lie between two
    // of this JVM's, as it does when both read the machine's one monotonic clock.
    private static void awaitReady(WorkerLines<Access> events, int worker, long before) throws InterruptedException {
        WorkerLines.Line<Access> ready = events.await("READY from worker " + worker,
                all -> all.stream().filter(e -> e.worker() == worker && e.is("READY")).findFirst().orElse(null));
        long theirs = Long.parseLong(ready.field(1));
        assertTrue(theirs >= before && theirs <= System.nanoTime(), "worker " + worker + " does not share this JVM's clock");
    }

    private static List<Access> byEntry(List<Access> accesses) {
        return accesses.stream().sorted(Comparator.comparingLong(access -> access.section().enterNanos())).toList();
    }

    /** @return the first section printed that was a write (or a read) entered after that time, else null */
    private static Access firstAfter(List<WorkerLines.Line<Access>> all, long after, boolean writer) {
        return all.stream().filter(e -> e.is("ACCESS")).map(WorkerLines.Line::section)
                .filter(access -> access.writer() == writer && access.section().enterNanos() > after)
                .findFirst().orElse(null);
    }
}
