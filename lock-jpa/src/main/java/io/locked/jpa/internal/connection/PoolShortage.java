package io.locked.jpa.internal.connection;

import io.locked.spi.NoConnectionException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Warns, at most once per burst, that Locked ran out of connections: the operator must enlarge the
 * pool or lock less at once, and a log line per failed call would only bury that.
 */
public final class PoolShortage {
    private static final Logger LOG = Logger.getLogger(PoolShortage.class.getName());
    private static final long QUIET_NANOS = TimeUnit.SECONDS.toNanos(10);
    private final LockConnections connections;
    private final AtomicLong lastWarned = new AtomicLong(System.nanoTime() - QUIET_NANOS);

    public PoolShortage(LockConnections connections) {
        this.connections = connections;
    }

    /**
     * A pessimistic acquisition found Locked's own share of the pool in use for the whole connection wait.
     *
     * @return the exception that ends the acquisition
     */
    public NoConnectionException budgetSpent(String key, Duration wait, ConnectionBudget budget) {
        String spent = "Locked's pessimistic locks already hold or wait for " + budget.limit() + " of the connections of "
                + connections.describe() + ", and one is kept for lease renewals and releases";
        warn(() -> "Locked did not acquire '" + key + "' within " + wait + ": " + spent
                + ". Enlarge the pool, or hold fewer pessimistic locks at once");
        return new NoConnectionException(spent);
    }

    /**
     * A call found no free connection in the pool within its bound. Only a pool whose connections
     * are all lent out, or whose use Locked cannot see, is said to need enlarging: one with room
     * had a connection free again by now (a momentary shortage), or could not open one.
     */
    public void noConnection(String key, String what, Duration within) {
        int size = connections.maximumSize();
        java.util.OptionalInt inUse = connections.inUse();
        if (size > 0 && inUse.isPresent() && inUse.getAsInt() < size) {
            return;
        }
        warn(() -> "Locked got no connection for " + what + " of '" + key + "' within " + within + ": "
                + connections.describe() + " had none free. Enlarge the pool");
    }

    private void warn(java.util.function.Supplier<String> message) {
        long now = System.nanoTime();
        long last = lastWarned.get();
        if (now - last >= QUIET_NANOS && lastWarned.compareAndSet(last, now)) {
            LOG.log(Level.WARNING, message.get());
        }
    }
}
