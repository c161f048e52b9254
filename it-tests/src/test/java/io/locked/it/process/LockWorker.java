package io.locked.it.process;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.contract.CriticalSection;
import io.locked.contract.HistoryRecorder;
import io.locked.it.weld.LockedDeployment;
import io.locked.it.weld.TestConfig;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jboss.weld.environment.se.WeldContainer;

/**
 * A separate JVM that takes a lock, started by the multi-process tests.
 *
 * <ul>
 *   <li>{@code cycles DATABASE MODE KEY THREADS CYCLES HISTORY_FILE}: each thread takes the lock
 *   CYCLES times and, inside, increments a counter row by a non-atomic read then write; every
 *   critical section is written to HISTORY_FILE for the checker.</li>
 *   <li>{@code unlocked DATABASE - KEY THREADS CYCLES HISTORY_FILE}: the same without any lock, the
 *   negative control that shows the checker catches what a missing lock does.</li>
 *   <li>{@code locked-bean DATABASE MODE KEY THREADS CYCLES HISTORY_FILE}: the same through a
 *   {@code @Locked} bean on Weld SE, the mode set by MicroProfile Config.</li>
 *   <li>{@code hold DATABASE MODE KEY LEASE_MILLIS}: takes the lock, prints {@code HELD token}, and
 *   holds it until the process is killed.</li>
 * </ul>
 */
public final class LockWorker {
    static final String COUNTER_TABLE = "locked_it_counter";
    private static final Duration PATIENT = Duration.ofMinutes(2);

    private LockWorker() {
    }

    public static void main(String[] args) throws Exception {
        TestDatabase database = TestDatabase.valueOf(args[1]);
        String key = args[3];
        switch (args[0]) {
            case "cycles" -> runCycles(database, LockMode.valueOf(args[2]), key,
                    Integer.parseInt(args[4]), Integer.parseInt(args[5]), Path.of(args[6]));
            case "unlocked" -> runCycles(database, null, key,
                    Integer.parseInt(args[4]), Integer.parseInt(args[5]), Path.of(args[6]));
            case "locked-bean" -> runLockedBean(database, args[2], key,
                    Integer.parseInt(args[4]), Integer.parseInt(args[5]), Path.of(args[6]));
            case "hold" -> hold(database, LockMode.valueOf(args[2]), key, Duration.ofMillis(Long.parseLong(args[4])));
            default -> throw new IllegalArgumentException("unknown command " + args[0]);
        }
    }

    private static void runCycles(TestDatabase database, LockMode mode, String key, int threads, int cycles, Path historyFile)
            throws Exception {
        HistoryRecorder history = new HistoryRecorder();
        try (Store store = database.open(threads + 2);
             LockManager locks = LockManagerBuilder.on(store.repository()).build()) {
            runThreads(threads, () -> {
                for (int i = 0; i < cycles; i++) {
                    if (mode == null) {
                        unlockedCycle(store, key, history);
                    } else {
                        oneCycle(store, locks, LockRequest.of(key).mode(mode).waitFor(PATIENT), key, history);
                    }
                }
            });
        }
        writeHistory(history, historyFile);
    }

    private static void runLockedBean(TestDatabase database, String mode, String key, int threads, int cycles,
                                      Path historyFile) throws Exception {
        TestConfig.set("locked-test.database", database.name());
        TestConfig.set("locked.\"" + LockedCounter.class.getName() + "/increment\".mode", mode);
        try (WeldContainer container = LockedDeployment.with(LockedCounter.class).initialize()) {
            LockedCounter counter = container.select(LockedCounter.class).get();
            runThreads(threads, () -> {
                for (int i = 0; i < cycles; i++) {
                    counter.increment(key);
                }
            });
            writeHistory(counter.history(), historyFile);
        }
    }

    /** Work that each thread of a worker runs. */
    private interface ThreadWork {
        void run() throws Exception;
    }

    // Runs the work on that many threads and exits the JVM with status 2 if any thread failed.
    private static void runThreads(int threads, ThreadWork work) throws InterruptedException {
        List<Thread> workers = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
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

    private static void writeHistory(HistoryRecorder history, Path historyFile) throws IOException {
        List<String> lines = history.sections().stream().map(CriticalSection::toLine).toList();
        Files.write(historyFile, lines);
        System.out.println("DONE " + lines.size());
    }

    private static void oneCycle(Store store, LockManager locks, LockRequest request, String key, HistoryRecorder history)
            throws SQLException {
        try (LockHandle lock = locks.acquire(request)) {
            long enter = System.nanoTime();
            // deliberately not atomic: only the lock keeps increments from being lost
            long value = readCounter(store, key);
            writeCounter(store, key, value + 1);
            long exit = System.nanoTime();
            history.record(new CriticalSection(ProcessHandle.current().pid() + "/" + Thread.currentThread().getName(),
                    lock.token(), enter, exit));
        }
    }

    private static void unlockedCycle(Store store, String key, HistoryRecorder history) throws SQLException {
        long enter = System.nanoTime();
        long value = readCounter(store, key);
        writeCounter(store, key, value + 1);
        history.record(new CriticalSection(ProcessHandle.current().pid() + "/" + Thread.currentThread().getName(),
                value, enter, System.nanoTime()));
    }

    static long readCounter(Store store, String key) throws SQLException {
        try (Connection connection = store.pool().getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT counter_value FROM " + COUNTER_TABLE + " WHERE id = ?")) {
            select.setString(1, key);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getLong(1) : 0;
            }
        }
    }

    private static void writeCounter(Store store, String key, long value) throws SQLException {
        try (Connection connection = store.pool().getConnection();
             PreparedStatement update = connection.prepareStatement("UPDATE " + COUNTER_TABLE + " SET counter_value = ? WHERE id = ?")) {
            update.setLong(1, value);
            update.setString(2, key);
            if (update.executeUpdate() != 1) {
                throw new IllegalStateException("counter row " + key + " is missing");
            }
        }
    }

    private static void hold(TestDatabase database, LockMode mode, String key, Duration lease) throws IOException, InterruptedException {
        Store store = database.open(4);
        LockManager locks = LockManagerBuilder.on(store.repository()).build();
        LockHandle lock = locks.acquire(LockRequest.of(key).mode(mode).leaseFor(lease).waitFor(PATIENT));
        System.out.println("HELD " + lock.token());
        System.out.flush();
        // held until SIGKILL; the lock is never released by this process
        new java.util.concurrent.CountDownLatch(1).await();
    }
}
