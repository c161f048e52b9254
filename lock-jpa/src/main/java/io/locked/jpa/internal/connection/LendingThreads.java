package io.locked.jpa.internal.connection;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Bounds the borrow of a pool that cannot be told how long to wait: a thread of its own borrows,
 * and the caller waits for it only as long as it may. A connection that arrives after the caller
 * gave up goes straight back to the pool. Costs a thread hand-off per borrow; pools that take a
 * timeout per borrow (HikariCP) or never wait (Hibernate's built-in pool) do without it.
 *
 * <p>A thread whose caller gave up still waits in the pool, up to the pool's own timeout, and ahead
 * of the application's own borrowers. So at most {@link #MAX_THREADS} borrow at once in a JVM; when
 * that many wait, the pool has been drained for longer than their callers would wait, and a further
 * borrow fails at once with "no free connection" instead of adding a thread.
 */
public final class LendingThreads {
    /**
     * The hand-off itself takes time: a caller that may not wait at all (a {@code tryAcquire}) still
     * waits this long for the lending thread, or it would never get a connection.
     */
    static final long HAND_OFF_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /**
     * The most borrows under way at once in this JVM. A pool with a free connection lends it at once,
     * so only a drained pool keeps them; past this many, more threads would only queue in it.
     */
    public static final int MAX_THREADS = 32;
    private static final Semaphore BORROWING = new Semaphore(MAX_THREADS);
    private static final Executor THREADS = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 1, TimeUnit.MINUTES,
            new SynchronousQueue<>(), runnable -> {
                Thread thread = Executors.defaultThreadFactory().newThread(runnable);
                thread.setName("locked-connection-borrow-" + thread.getId());
                thread.setDaemon(true);
                return thread;
            });

    /** Borrows and gives back a connection, with the pool's own waiting. */
    public interface Pool {
        Connection borrow() throws SQLException;

        void giveBack(Connection connection) throws SQLException;

        String describe();
    }

    private LendingThreads() {
    }

    /**
     * @return a connection borrowed within {@code waitNanos}
     * @throws NoFreeConnection if none came within the wait
     * @throws SQLException     if the pool failed to lend one
     */
    static Connection borrow(Pool pool, long waitNanos) throws SQLException {
        if (!BORROWING.tryAcquire()) {
            throw new NoFreeConnection(pool.describe() + ", where " + MAX_THREADS + " threads of Locked already wait");
        }
        CompletableFuture<Connection> lent = new CompletableFuture<>();
        try {
            THREADS.execute(() -> {
                try {
                    Connection connection = pool.borrow();
                    if (!lent.complete(connection)) {
                        pool.giveBack(connection);
                    }
                } catch (SQLException | RuntimeException | Error failure) {
                    lent.completeExceptionally(failure);
                } finally {
                    BORROWING.release();
                }
            });
        } catch (RuntimeException | Error notStarted) {
            BORROWING.release();
            throw notStarted;
        }
        try {
            return lent.get(Math.max(waitNanos, HAND_OFF_GRACE_NANOS), TimeUnit.NANOSECONDS);
        } catch (TimeoutException waitOver) {
            if (lent.cancel(false)) {
                throw new NoFreeConnection(pool.describe());
            }
            return settled(lent); // lent, or failed, in the same instant
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            if (!lent.cancel(false) && !lent.isCompletedExceptionally()) {
                pool.giveBack(lent.join());
            }
            throw new SQLException("Interrupted while waiting for a connection", interrupted);
        } catch (ExecutionException failed) {
            throw rethrown(failed.getCause());
        }
    }

    private static Connection settled(CompletableFuture<Connection> lent) throws SQLException {
        try {
            return lent.join();
        } catch (CompletionException failed) {
            throw rethrown(failed.getCause());
        }
    }

    private static SQLException rethrown(Throwable failure) {
        if (failure instanceof SQLException sql) {
            return sql;
        }
        if (failure instanceof RuntimeException runtime) {
            throw runtime;
        }
        throw (Error) failure;
    }
}
