package io.locked.it.process;

import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.api.LockStoreUnavailableException;
import io.locked.contract.CriticalSection;
import io.locked.contract.HistoryRecorder;
import io.locked.contract.PermitHistoryChecker.PermitSection;
import io.locked.contract.Places;
import io.locked.contract.ReadWriteHistoryChecker.Access;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * One worker thread's cycles on one key: acquire, read the counter, write it plus one, release;
 * every critical section recorded for the history checker, with whether the lock told the holder
 * it had lost the lock.
 *
 * <p>With a fixed number of cycles (the exclusion tests) any failure ends the worker. Until
 * stopped (the fault tests) failures are what is being tested: each is printed as an event and
 * the thread goes on. Events: {@code CYCLE thread enter}, {@code FAILED thread kind start end
 * keyNamed}, {@code LATE thread start end} (acquired after its wait), {@code LOST thread token
 * INVALID|AT_CLOSE} (the lock told the holder it lost the lock: {@code isValid()} was already false
 * when it left, or only {@code close()} threw {@code LockLostException}), {@code UNGATED thread token
 * outcome lost} (the gated section left: its write's {@code WriteOutcome} and whether it was told it
 * lost the lock), {@code CLOSE_FAILED thread
 * exception invalid} ({@code close()} threw something else; invalid: whether {@code isValid()} was
 * already false).
 *
 * <p>With permits ({@code permits=N}) each section is recorded with the slot it held
 * ({@link RowLines}), and until stopped the event of a completed cycle is {@code PERMIT} and that
 * section's line, in place of {@code CYCLE}: the test sees every section of a worker it kills; a
 * permit holder only reads the counter. With
 * the read/write lock ({@code write-percent=P}) each cycle writes with probability P percent, else
 * reads: a reader only reads the counter. Its section is recorded with whether it asked to write and
 * the row it held, and until stopped its event is {@code ACCESS} and that line.
 */
final class CycleLoop {
    private static final int WRITE_ATTEMPTS = 3;
    private final CycleOptions options;
    private final DataSource pool;
    private final LockManager locks;
    private final WorkerControl control;
    private final HistoryRecorder history;
    private final CounterWrites writes;
    private final RowLines rows;
    private final LockRequest request;

    CycleLoop(CycleOptions options, DataSource pool, LockManager locks, WorkerControl control, HistoryRecorder history,
              CounterWrites writes, RowLines rows) {
        this.options = options;
        this.pool = pool;
        this.locks = locks;
        this.control = control;
        this.history = history;
        this.writes = writes;
        this.rows = rows;
        this.request = options.mode() == null ? null
                : LockRequest.of(options.key()).mode(options.mode()).maxWait(options.maxWait()).lease(options.lease())
                        .permits(options.permits());
    }

    /** Runs this thread's cycles. */
    void run() throws Exception {
        for (int i = 0; options.untilStopped() ? !control.stopping() : i < options.cycles(); i++) {
            if (request == null) {
                unlockedCycle();
            } else {
                lockedCycle();
            }
        }
    }

    private String thread() {
        return Thread.currentThread().getName();
    }

    private void lockedCycle() throws Exception {
        // permit holders only read the counter too: several write it at once by design, and on Galera
        // their writes to its one row from different nodes fail certification
        boolean writer = options.readWrite() ? ThreadLocalRandom.current().nextInt(100) < options.writePercent()
                : options.permits() == 0;
        LockRequest thisRequest = !options.readWrite() ? request : writer ? request.write() : request.read();
        long start = System.nanoTime();
        LockHandle lock;
        try {
            lock = locks.acquire(thisRequest);
        } catch (RuntimeException failure) {
            acquireFailed(failure, start);
            return;
        }
        long enter = System.nanoTime();
        if (enter - start > options.maxWait().toNanos()) {
            WorkerEvents.print("LATE " + thread() + " " + start + " " + enter);
        }
        long read = -1;
        WriteOutcome outcome = WriteOutcome.FAILED;
        boolean gated = false;
        try {
            read = readCounter();
            gated = control.passGate(thread(), lock, enter, writer);
            if (writer) {
                long based = incrementCounter(read, lock);
                if (based == CounterFence.REFUSED) {
                    outcome = WriteOutcome.REFUSED;
                } else {
                    outcome = WriteOutcome.OK;
                    read = based; // a fenced increment reads again, after its fence
                }
            }
        } catch (SQLException | RuntimeException failure) {
            if (options.failuresEndWorker()) {
                lock.close();
                throw failure;
            }
            System.err.println("counter failed in " + thread() + " holding token " + lock.token() + ": " + failure);
        }
        boolean invalid = !lock.isValid();
        boolean lost = invalid;
        long exit = System.nanoTime();
        try {
            lock.close();
        } catch (LockLostException told) {
            if (options.failuresEndWorker()) {
                throw told;
            }
            lost = true;
        } catch (RuntimeException failure) {
            if (options.failuresEndWorker()) {
                throw failure;
            }
            WorkerEvents.print("CLOSE_FAILED " + thread() + " " + failure.getClass().getSimpleName() + " " + invalid);
            System.err.println(thread() + ": close of token " + lock.token() + (invalid ? ", known lost," : "")
                    + " failed: " + describe(failure));
        }
        CriticalSection section = new CriticalSection(holder(), lock.token(), enter, exit, lost);
        String rowLine = null;
        if (options.permits() > 0) {
            rowLine = RowLines.toLine(new PermitSection(Places.of(lock), section));
            rows.record(rowLine);
        } else if (options.readWrite()) {
            rowLine = RowLines.toLine(new Access(writer, Places.of(lock), section));
            rows.record(rowLine);
        } else {
            history.record(section);
        }
        if (writer) {
            writes.record(lock.token(), read, outcome);
        }
        if (options.untilStopped()) {
            if (lost) {
                WorkerEvents.print("LOST " + thread() + " " + lock.token() + " " + (invalid ? "INVALID" : "AT_CLOSE"));
            }
            if (gated) {
                WorkerEvents.print("UNGATED " + thread() + " " + lock.token() + " " + outcome + " " + lost);
            }
            WorkerEvents.print(options.permits() > 0 ? "PERMIT " + rowLine
                    : options.readWrite() ? "ACCESS " + rowLine : "CYCLE " + thread() + " " + enter);
        }
    }

    private void acquireFailed(RuntimeException failure, long start) throws InterruptedException {
        long end = System.nanoTime();
        if (options.failuresEndWorker()) {
            throw failure;
        }
        String kind;
        if (failure instanceof LockNotAcquiredException) {
            kind = "NOT_ACQUIRED";
        } else if (failure instanceof LockStoreUnavailableException) {
            kind = "STORE_UNAVAILABLE";
        } else if (failure instanceof LockException) {
            kind = failure.getClass().getSimpleName();
        } else {
            kind = "UNCLEAR";
            failure.printStackTrace();
        }
        boolean keyNamed = failure instanceof LockException named && options.key().equals(named.key());
        WorkerEvents.print("FAILED " + thread() + " " + kind + " " + start + " " + end + " " + keyNamed);
        if (end - start > options.maxWait().toNanos()) {
            // kept in the worker's log: why a wait ran past its maxWait
            System.err.printf("%s: %s ended %d ms past its wait of %s: %s%n", thread(), kind,
                    (end - start - options.maxWait().toNanos()) / 1_000_000, options.maxWait(), describe(failure));
        }
        if (!(failure instanceof LockNotAcquiredException)) {
            // a store that fails at once would otherwise be hammered in a tight loop
            Thread.sleep(10);
        }
    }

    private static String describe(Throwable failure) {
        StringBuilder text = new StringBuilder(failure.toString());
        for (Throwable cause = failure.getCause(); cause != null; cause = cause.getCause()) {
            text.append(" <- ").append(cause);
        }
        return text.toString();
    }

    private void unlockedCycle() throws SQLException {
        long enter = System.nanoTime();
        long value = readCounter();
        try (Connection connection = pool.getConnection()) {
            Counter.write(connection, options.key(), value + 1);
        }
        history.record(new CriticalSection(holder(), value, enter, System.nanoTime()));
    }

    private long readCounter() throws SQLException {
        try (Connection connection = pool.getConnection()) {
            return Counter.read(connection, options.key());
        }
    }

    // Retried when the connection failed: a holder whose pooled connection was cut should still get
    // its (possibly late) write to the database. A fenced increment whose commit landed before the cut
    // increments again: two increments, not a lost update, since each confirmed write names the value
    // it read.
    private long incrementCounter(long readBefore, LockHandle lock) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try (Connection connection = pool.getConnection()) {
                return options.fence().increment(connection, options.key(), readBefore, lock);
            } catch (SQLException failure) {
                boolean connectionLost = failure instanceof SQLTransientConnectionException
                        || (failure.getSQLState() != null && failure.getSQLState().startsWith("08"));
                if (!connectionLost || attempt == WRITE_ATTEMPTS) {
                    throw failure;
                }
            }
        }
    }

    private static String holder() {
        return ProcessHandle.current().pid() + "/" + Thread.currentThread().getName();
    }
}
