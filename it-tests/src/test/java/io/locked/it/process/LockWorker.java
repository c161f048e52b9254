package io.locked.it.process;

import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.contract.Await;
import io.locked.contract.CriticalSection;
import io.locked.contract.HistoryRecorder;
import io.locked.internal.cdi.IdleRowCleanupBean;
import io.locked.it.weld.LockedDeployment;
import io.locked.it.weld.TestConfig;
import io.locked.jpa.LockFence;
import io.locked.jpa.LockStatements;
import io.locked.jpa.LockTokens;
import io.locked.jpa.StandbyCommits;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.jboss.weld.environment.se.WeldContainer;

/**
 * A separate JVM that takes a lock, started by the multi-process tests through {@link WorkerProcess}.
 *
 * <ul>
 *   <li>{@code cycles name=value...}: threads take the lock and increment the counter (see
 *   {@link CycleLoop} and {@link CycleOptions} for the names); each critical section is written to
 *   the history file for the checker. With {@code cycles=N} each thread does N cycles; without, the
 *   threads cycle until told to stop on standard input ({@link WorkerControl}) and report what
 *   happens as events on standard output (the fault tests). With {@code permits=N} the threads take
 *   permits of the key and the history holds each section's slot ({@link RowLines}); with
 *   {@code write-percent=P} they read or write under the key's read/write lock and it holds each
 *   section's row and whether it wrote. With {@code tokens=CLOCK} and {@code mode=PESSIMISTIC}, or with
 *   {@code lease-keep-millis=} above zero and {@code mode=OPTIMISTIC}, it prints {@code HANDED-OVER n} at every
 *   hundredth row or lease its holders passed on ({@link HandOverCount}). {@code mode=-}
 *   runs without any lock: the negative control that shows the checker catches what a missing lock does.</li>
 *   <li>{@code locked-bean DATABASE MODE KEY THREADS CYCLES HISTORY_FILE}: the same through a
 *   {@code @Locked} bean on Weld SE, the mode set by MicroProfile Config.</li>
 *   <li>{@code cleanup DATABASE EVERY IDLE_AFTER}: a Weld SE application with the scheduled cleanup
 *   of idle rows set by MicroProfile Config, that prints each round as {@link CleanupReport} does,
 *   and closes the container (releasing the cleanup's lock) on {@code stop} or the end of its input,
 *   then prints {@code STOPPED}.</li>
 *   <li>{@code hold-until-forced DATABASE MODE KEY}: takes the lock, prints {@code HELD token}, and on
 *   {@code write} from its input (the test has forced the release meanwhile) tries a fenced write and
 *   prints {@code FENCE refused} or {@code FENCE allowed}; then waits for its handle to learn of the
 *   loss ({@code LOST}), closes it ({@code CLOSE lost} or {@code CLOSE ok}), takes the lock again
 *   ({@code HELD-AGAIN token}), releases it and prints {@code RELEASED}.</li>
 *   <li>{@code hold DATABASE MODE KEY LEASE_MILLIS [STATEMENTS]}: takes the lock (through the given
 *   lock path, default auto), prints {@code HELD token}, and holds it until the process is killed.</li>
 *   <li>{@code lead DATABASE ROLE LEASE_MILLIS OBEYS}: campaigns for the role and acts as leader, as
 *   {@link LeaderWorker} says, until the process is killed.</li>
 * </ul>
 *
 * <p>Every mode starts by printing {@code READY nanoTime}: the test checks that this worker's
 * {@link System#nanoTime()} reads the same clock as its own, which the history checker relies on.
 */
public final class LockWorker {
    private static final Duration PATIENT = Duration.ofMinutes(2);

    private LockWorker() {
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "cycles" -> runCycles(CycleOptions.parse(args, 1));
            case "locked-bean" -> runLockedBean(TestDatabase.valueOf(args[1]), args[2], args[3],
                    Integer.parseInt(args[4]), Integer.parseInt(args[5]), Path.of(args[6]));
            case "cleanup" -> runCleanup(TestDatabase.valueOf(args[1]), args[2], args[3]);
            case "hold-until-forced" -> holdUntilForced(TestDatabase.valueOf(args[1]), LockMode.valueOf(args[2]), args[3]);
            case "hold" -> hold(TestDatabase.valueOf(args[1]), LockMode.valueOf(args[2]), args[3],
                    Duration.ofMillis(Long.parseLong(args[4])),
                    args.length > 5 ? LockStatements.valueOf(args[5]) : LockStatements.AUTO,
                    Duration.ofMillis(args.length > 6 ? Long.parseLong(args[6]) : 0));
            case "lead" -> LeaderWorker.lead(TestDatabase.valueOf(args[1]), args[2], Duration.ofMillis(Long.parseLong(args[3])),
                    Boolean.parseBoolean(args[4]));
            default -> throw new IllegalArgumentException("unknown command " + args[0]);
        }
    }

    private static void runCycles(CycleOptions options) throws Exception {
        WorkerControl control = WorkerControl.listen(System.in);
        HistoryRecorder history = new HistoryRecorder();
        CounterWrites writes = new CounterWrites();
        RowLines rows = new RowLines();
        try (Store store = options.database().open(options.threads() + 2, Map.of(),
                settings -> {
                    settings.galeraSingleWriter(options.galeraSingleWriter()).statements(options.statements())
                            .tokens(options.tokens());
                    return options.synchronousCommit() == null ? settings
                            : settings.postgresqlSynchronousCommit(StandbyCommits.parse(options.synchronousCommit()));
                });
             LockManager locks = LockManagerBuilder.on(countHandOvers(options) ? new HandOverCount(store.repository())
                     : store.repository()).keepLeasesFor(options.leaseKeep()).build()) {
            ready();
            runThreads(options.threads(), () -> new CycleLoop(options, store.pool().dataSource(), locks, control, history, writes,
                    rows).run());
        }
        if (options.writes() != null) {
            writes.writeTo(options.writes());
        }
        writeHistory(options.permits() > 0 || options.readWrite() ? rows.lines() : lines(history), options.history());
    }

    /**
     * Where holds may pass their row lock on (clock tokens, pessimistic), and where the manager keeps released
     * leases (optimistic): the worker prints how many it passed on.
     */
    private static boolean countHandOvers(CycleOptions options) {
        return options.mode() == LockMode.OPTIMISTIC && !options.leaseKeep().isZero()
                || options.tokens() == LockTokens.CLOCK && options.mode() == LockMode.PESSIMISTIC;
    }

    private static void runLockedBean(TestDatabase database, String mode, String key, int threads, int cycles,
                                      Path historyFile) throws Exception {
        TestConfig.set("locked-test.database", database.name());
        TestConfig.set("locked.\"" + LockedCounter.class.getName() + "/increment\".mode", mode);
        try (WeldContainer container = LockedDeployment.with(LockedCounter.class).initialize()) {
            LockedCounter counter = container.select(LockedCounter.class).get();
            ready();
            runThreads(threads, () -> {
                for (int i = 0; i < cycles; i++) {
                    counter.increment(key);
                }
            });
            writeHistory(lines(counter.history()), historyFile);
        }
    }

    private static void runCleanup(TestDatabase database, String every, String idleAfter) throws Exception {
        WorkerControl control = WorkerControl.listen(System.in);
        TestConfig.set("locked-test.database", database.name());
        TestConfig.set("locked.cleanup.every", every);
        TestConfig.set("locked.cleanup.idle-after", idleAfter);
        CleanupReport.install();
        try (WeldContainer container = LockedDeployment.with(IdleRowCleanupBean.class).initialize()) {
            ready();
            while (!control.stopping()) {
                Thread.sleep(50);
            }
        }
        WorkerEvents.print("STOPPED");
    }

    private static void ready() {
        WorkerEvents.print("READY " + System.nanoTime());
    }

    /** Work that each thread of a worker runs. */
    private interface ThreadWork {
        void run() throws Exception;
    }

    // Runs the work on that many threads and exits the JVM with status 2 if any thread failed.
    private static void runThreads(int threads, ThreadWork work) throws InterruptedException {
        List<Thread> workers = new ArrayList<>();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                try {
                    work.run();
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "w" + t);
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        if (!failures.isEmpty()) {
            failures.get(0).printStackTrace();
            System.exit(2);
        }
    }

    private static List<String> lines(HistoryRecorder history) {
        return history.sections().stream().map(CriticalSection::toLine).toList();
    }

    private static void writeHistory(List<String> lines, Path historyFile) throws IOException {
        Files.write(historyFile, lines);
        WorkerEvents.print("DONE " + lines.size());
    }

    private static void holdUntilForced(TestDatabase database, LockMode mode, String key) throws Exception {
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        LockRequest request = LockRequest.of(key).mode(mode).lease(Duration.ofSeconds(4)).maxWait(PATIENT);
        try (Store store = database.open(4, Map.of());
             LockManager locks = LockManagerBuilder.on(store.repository()).sessionCheckEvery(Duration.ofSeconds(1)).build()) {
            ready();
            LockHandle lock = locks.acquire(request);
            WorkerEvents.print("HELD " + lock.token());
            if (!"write".equals(commands.readLine())) {
                throw new IllegalStateException("expected the command 'write'");
            }
            WorkerEvents.print("FENCE " + fencedWrite(store, lock));
            Await.invalid(lock, PATIENT, "the forced release");
            WorkerEvents.print("LOST");
            try {
                lock.close();
                WorkerEvents.print("CLOSE ok");
            } catch (LockLostException lost) {
                WorkerEvents.print("CLOSE lost");
            }
            try (LockHandle again = locks.acquire(request)) {
                WorkerEvents.print("HELD-AGAIN " + again.token());
            }
            WorkerEvents.print("RELEASED");
        }
    }

    /** A transaction fenced with the handle, rolled back either way: whether the fence admitted it. */
    private static String fencedWrite(Store store, LockHandle lock) throws SQLException {
        try (Connection connection = store.pool().dataSource().getConnection()) {
            connection.setAutoCommit(false);
            try {
                LockFence.check(connection, lock);
                return "allowed";
            } catch (LockLostException refused) {
                return "refused";
            } finally {
                connection.rollback();
            }
        }
    }

    private static void hold(TestDatabase database, LockMode mode, String key, Duration lease, LockStatements statements,
                             Duration lockDelay) throws InterruptedException {
        Store store = database.open(4, Map.of(), settings -> settings.statements(statements));
        LockManager locks = LockManagerBuilder.on(store.repository()).build();
        ready();
        LockHandle lock = locks.acquire(LockRequest.of(key).mode(mode).lease(lease).lockDelay(lockDelay).maxWait(PATIENT));
        WorkerEvents.print("HELD " + lock.token());
        // held until SIGKILL; the lock is never released by this process
        new CountDownLatch(1).await();
    }
}
