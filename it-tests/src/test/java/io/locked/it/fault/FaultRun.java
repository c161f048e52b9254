package io.locked.it.fault;

import io.locked.api.LockMode;
import io.locked.jpa.LockTokens;
import io.locked.contract.CriticalSection;
import io.locked.it.process.Counter;
import io.locked.it.process.CounterFence;
import io.locked.it.process.CounterWrites;
import io.locked.it.process.WriteOutcome;
import io.locked.it.process.WorkerProcess;
import io.locked.it.server.WorkerDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * Worker JVMs cycling on one key until stopped, and the steps the fault scenarios are made of.
 * Worker 0 is the <em>holder</em>: the test gates one of its threads inside a critical section
 * (after it read the counter, before it writes) and injects its fault while that thread holds the
 * lock and the other workers wait for it. Every step waits for a condition on the workers' events,
 * never for a fixed time, and fails as a hang when the run's patience runs out.
 */
final class FaultRun implements AutoCloseable {
    static final int HOLDER = 0;
    private final FaultSettings settings;
    private final EventLog events;
    private final List<WorkerProcess> workers = new ArrayList<>();
    private final List<Path> histories = new ArrayList<>();
    private final List<Path> writes = new ArrayList<>();
    private final List<Takeover> episodes = new ArrayList<>();
    private final List<long[]> holderSuspended = new ArrayList<>();
    private final Thread killOnExit = new Thread(this::close, "fault-run-kill");
    private long loadDeadline;
    private String gated;

    private FaultRun(FaultSettings settings) {
        this.settings = settings;
        this.events = new EventLog(settings.patience());
        // a suspended worker would never notice that the test JVM ended
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    /**
     * Creates the counter of a fresh key and starts the workers on it.
     *
     * @param database    where the counter and the lock table are
     * @param holderRoute how the holder reaches that database (the same endpoint, or a proxy in front of it)
     */
    static FaultRun start(Path dir, FaultSettings settings, LockMode mode, CounterFence fence, WorkerDatabase database,
                          WorkerDatabase holderRoute) throws Exception {
        return start(dir, settings, mode, LockTokens.WRITTEN, fence, database, holderRoute);
    }

    /** As above, the workers keeping their pessimistic tokens as {@code tokens} says. */
    static FaultRun start(Path dir, FaultSettings settings, LockMode mode, LockTokens tokens, CounterFence fence,
                          WorkerDatabase database, WorkerDatabase holderRoute) throws Exception {
        return start(dir, settings, mode, tokens, fence, database, holderRoute, List.of());
    }

    /** As above, with further {@code name=value} settings of the workers' repositories ({@code CycleOptions}). */
    static FaultRun start(Path dir, FaultSettings settings, LockMode mode, LockTokens tokens, CounterFence fence,
                          WorkerDatabase database, WorkerDatabase holderRoute, List<String> repositorySettings)
            throws Exception {
        String key = "it:fault:" + mode + ":" + UUID.randomUUID();
        try (Connection connection = database.connect()) {
            Counter.create(connection, key);
        }
        FaultRun run = new FaultRun(settings);
        try {
            long before = System.nanoTime();
            for (int w = 0; w < settings.workers(); w++) {
                Path history = dir.resolve("history-" + w + ".txt");
                Path written = dir.resolve("writes-" + w + ".txt");
                run.histories.add(history);
                run.writes.add(written);
                List<String> arguments = new ArrayList<>(List.of("cycles", "database=" + database.database(),
                        "mode=" + mode, "key=" + key, "threads=" + settings.threads(),
                        "wait-millis=" + settings.maxWait().toMillis(), "lease-millis=" + settings.lease().toMillis(),
                        "fence=" + fence, "history=" + history, "writes=" + written, "tokens=" + tokens));
                arguments.addAll(repositorySettings);
                run.workers.add(WorkerProcess.start(dir.resolve("worker-" + w + ".log"),
                        (w == HOLDER ? holderRoute : database).workerEnvironment(), run.events.sink(w),
                        arguments.toArray(String[]::new)));
            }
            for (int w = 0; w < settings.workers(); w++) {
                run.awaitReady(w, before);
            }
            run.loadDeadline = System.nanoTime() + settings.load().toNanos();
            return run;
        } catch (Exception | Error failure) {
            run.close();
            throw failure;
        }
    }

    // The history checker compares System.nanoTime() across JVMs: check here that this worker's
    // reading lies between two of this JVM's, as it must if both read the machine's CLOCK_MONOTONIC.
    private void awaitReady(int worker, long before) throws InterruptedException {
        WorkerEvent ready = events.await("READY from worker " + worker, new EventLog.Mark(0, before),
                recent -> recent.stream().filter(e -> e.worker() == worker && e.is("READY")).findFirst().orElse(null));
        long after = System.nanoTime();
        long theirs = ready.nanos(1);
        if (theirs < before || theirs > after) {
            throw new AssertionError("worker " + worker + " read nanoTime " + theirs + ", not between " + before + " and "
                    + after + " of the test JVM: the JVMs do not share one monotonic clock, so their histories cannot be compared");
        }
    }

    WorkerProcess holder() {
        return workers.get(HOLDER);
    }

    /** SIGSTOP of the whole holder JVM. */
    void suspendHolder() throws IOException, InterruptedException {
        holderSuspended.add(new long[] {System.nanoTime(), Long.MAX_VALUE});
        holder().suspend();
    }

    /** SIGCONT of the holder JVM. */
    void resumeHolder() throws IOException, InterruptedException {
        holder().resume();
        holderSuspended.get(holderSuspended.size() - 1)[1] = System.nanoTime();
    }

    // A wait of the holder JVM's own threads that spans its suspension overran because the whole
    // JVM stood still, not because the lock waited too long: left out of the overrun figure.
    private boolean frozenDuring(WorkerEvent event) {
        return event.worker() == HOLDER && holderSuspended.stream()
                .anyMatch(stop -> event.attemptStart() < stop[1] && event.attemptEnd() > stop[0]);
    }

    EventLog.Mark mark() {
        return events.mark();
    }

    /** Gates the next critical section of the holder and waits until a thread is inside it. */
    void gateHolder() throws Exception {
        EventLog.Mark before = mark();
        holder().send("gate");
        gated = events.await("holder inside its gated critical section", before,
                recent -> recent.stream().filter(e -> e.worker() == HOLDER && e.is("GATED")).map(WorkerEvent::thread)
                        .findFirst().orElse(null));
    }

    /** Waits until some other thread was refused the lock after the gated holder got in: the lock is waited for. */
    void awaitWaiter() throws InterruptedException {
        EventLog.Mark gatedAt = mark();
        events.await("waiter refused while the holder was inside", gatedAt,
                recent -> first(recent, e -> e.is("FAILED") && e.failure().equals("NOT_ACQUIRED") && !gatedThread(e)));
    }

    /** Waits until every worker but the holder reported an acquisition that failed after the mark. */
    void awaitEveryWaiterFailed(EventLog.Mark since) throws InterruptedException {
        events.await("failed acquisition from every waiting worker", since, recent -> {
            Set<Integer> failed = new HashSet<>();
            recent.stream().filter(e -> e.is("FAILED") && e.attemptEnd() > since.nanos()).forEach(e -> failed.add(e.worker()));
            failed.add(HOLDER);
            return failed.size() == workers.size() ? true : null;
        });
    }

    /** Waits until an acquisition that began more than a lease after the mark failed, whatever the reason. */
    void awaitFailureALeaseAfter(EventLog.Mark since) throws InterruptedException {
        long leaseLater = since.nanos() + settings.lease().toNanos();
        events.await("an acquisition begun a lease later that failed", since,
                recent -> first(recent, e -> e.is("FAILED") && !gatedThread(e) && e.attemptStart() >= leaseLater));
    }

    /**
     * Waits until either another thread entered a critical section after the fault (the gated
     * holder's lock was taken over) or a waiter was refused in an attempt that began more than a
     * lease after the fault (the holder kept the lock).
     */
    Takeover awaitTakeoverOrHeld(EventLog.Mark fault) throws InterruptedException {
        long leaseLater = fault.nanos() + settings.lease().toNanos();
        return events.await("takeover of the gated lock, or waiters refused for a lease", fault, recent -> {
            for (WorkerEvent event : recent) {
                if (event.is("CYCLE") && !gatedThread(event) && event.nanos(2) > fault.nanos()) {
                    return Takeover.TAKEN_OVER;
                }
                if (event.is("FAILED") && event.failure().equals("NOT_ACQUIRED") && !gatedThread(event)
                        && event.attemptStart() >= leaseLater) {
                    return Takeover.HELD;
                }
            }
            return null;
        });
    }

    /**
     * Waits until a critical section entered after the mark has ended: on one key, every section
     * from then on was acquired after the mark.
     */
    void awaitCycleEnteredAfter(EventLog.Mark since) throws InterruptedException {
        events.await("a completed cycle entered after the mark", since,
                recent -> first(recent, e -> e.is("CYCLE") && e.nanos(2) > since.nanos()));
    }

    /** Lets the gated holder write and leave. */
    void openGate() throws IOException {
        holder().send("open");
    }

    /**
     * Waits until the gated section, let go after the mark ({@link #openGate}), has left.
     *
     * @return whether its write landed although the lock told it that it had lost the lock: a late
     *         write that the negative control without a fence can catch
     */
    boolean awaitGatedSectionLeft(EventLog.Mark opened) throws InterruptedException {
        return events.await("the gated section's end", opened, recent -> recent.stream()
                .filter(e -> e.is("UNGATED") && gatedThread(e)).findFirst()
                .map(e -> e.fields()[3].equals(WriteOutcome.OK.name()) && Boolean.parseBoolean(e.fields()[4]))
                .orElse(null));
    }

    /** Waits until every worker completed a critical section that began after the mark: work resumed everywhere. */
    void awaitEveryWorkerCycled(EventLog.Mark since) throws InterruptedException {
        events.await("a completed cycle from every worker", since, recent -> {
            Set<Integer> cycled = new HashSet<>();
            recent.stream().filter(e -> e.is("CYCLE") && e.nanos(2) > since.nanos()).forEach(e -> cycled.add(e.worker()));
            return cycled.size() == workers.size() ? true : null;
        });
    }

    /** Records how the one injection of a fault that cannot be repeated in a run ended. */
    void injectedOnce(Takeover outcome) {
        episodes.add(outcome);
    }

    /**
     * Ends an injection of the fault.
     *
     * @return whether to inject it again: until at least {@code atLeast} injections and the
     *         configured load have been run, with plain load in between
     */
    boolean injectAgain(Takeover outcome, int atLeast) throws InterruptedException {
        episodes.add(outcome);
        long left = loadDeadline - System.nanoTime();
        if (episodes.size() >= atLeast && left <= 0) {
            return false;
        }
        Thread.sleep(Math.max(0, Math.min(left / 1_000_000, settings.betweenFaults().toMillis())));
        return episodes.size() < atLeast || loadDeadline - System.nanoTime() > 0;
    }

    /** Stops the workers, waits for them to end, and checks what they recorded. */
    FaultOutcome finish(String scenario, LockMode mode, CounterFence fence) throws Exception {
        for (WorkerProcess worker : workers) {
            worker.send("stop");
        }
        for (WorkerProcess worker : workers) {
            int status = worker.waitForExit(settings.patience().toSeconds());
            if (status != 0) {
                throw new AssertionError("worker " + worker.pid() + " failed with status " + status + ":\n" + worker.logTail());
            }
        }
        List<CriticalSection> sections = recordedSections();
        List<CounterWrites.Write> written = new ArrayList<>();
        for (Path file : writes) {
            Files.readAllLines(file).forEach(line -> written.add(CounterWrites.Write.parse(line)));
        }
        return FaultOutcome.of(scenario, mode, fence, episodes, sections, written, events.all(), this::frozenDuring,
                settings.maxWait());
    }

    /** @return every critical section the workers recorded; complete once they were stopped ({@link #finish}) */
    List<CriticalSection> recordedSections() throws IOException {
        List<CriticalSection> sections = new ArrayList<>();
        for (Path history : histories) {
            Files.readAllLines(history).forEach(line -> sections.add(CriticalSection.parse(line)));
        }
        return sections;
    }

    private boolean gatedThread(WorkerEvent event) {
        return event.from(HOLDER, gated);
    }

    private static Boolean first(List<WorkerEvent> recent, Predicate<WorkerEvent> matches) {
        return recent.stream().anyMatch(matches) ? true : null;
    }

    /** Kills every worker still running (SIGKILL works on a suspended one too). */
    @Override
    public void close() {
        for (WorkerProcess worker : workers) {
            worker.close();
        }
        if (Thread.currentThread() != killOnExit) {
            try {
                Runtime.getRuntime().removeShutdownHook(killOnExit);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway
            }
        }
    }
}
