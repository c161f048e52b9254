package io.locked.jpa.internal.connection;

import io.locked.api.LockInterruptedException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * How many of the pool's connections Locked's pessimistic acquisitions may take at once, waiting
 * in the database or holding a row lock: all but one. The last one stays for what must not wait
 * behind them: lease renewals and releases (a renewal that cannot get a connection loses its lease),
 * and the holders' own work. A pessimistic acquisition that finds the budget spent waits for it
 * within its own wait or the connection wait, in the JVM and without a connection, and then gets
 * "no connection". On both paths, the native one and the JPA one.
 *
 * <p>Only where the pool's size can be read (HikariCP); elsewhere there is no budget, and the pool
 * must be sized for the pessimistic holders and waiters plus the lease calls. A pool of one
 * connection gets a budget of one: nothing is kept then.
 */
public final class ConnectionBudget {
    private static final ConnectionBudget UNLIMITED = new ConnectionBudget(0, null);
    private final int limit;
    private final Semaphore permits;

    private ConnectionBudget(int limit, Semaphore permits) {
        this.limit = limit;
        this.permits = permits;
    }

    /** @param poolSize the pool's maximum size, or 0 if unknown */
    public static ConnectionBudget forPool(int poolSize) {
        if (poolSize <= 0) {
            return UNLIMITED;
        }
        int limit = Math.max(1, poolSize - 1);
        return new ConnectionBudget(limit, new Semaphore(limit));
    }

    /** @return how many connections pessimistic acquisitions may take at once; 0 if unlimited */
    int limit() {
        return limit;
    }

    /**
     * @param key       the lock key, for the exception
     * @param waitNanos how long to wait for a connection to be given back
     * @return whether a connection may be taken
     * @throws LockInterruptedException if interrupted while waiting
     */
    public boolean take(String key, long waitNanos) {
        try {
            return permits == null || permits.tryAcquire() || permits.tryAcquire(waitNanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(key, interrupted);
        }
    }

    /** Gives back what {@link #take} took. */
    public void giveBack() {
        if (permits != null) {
            permits.release();
        }
    }
}
