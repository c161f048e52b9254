package io.locked.jpa.internal.nativepath;

import io.locked.jpa.internal.connection.ConnectionBudget;
import io.locked.jpa.internal.transaction.LockTransaction;
import io.locked.spi.PessimisticHold;
import java.sql.SQLException;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The lock's own transaction, open from acquisition to release, holding the key's row lock. The
 * watchdog's session check and the holder's release may come from two threads; a JDBC connection
 * serves one at a time, so both take this hold's monitor.
 */
public final class PessimisticRowHold implements PessimisticHold {
    private static final Logger LOG = Logger.getLogger(PessimisticRowHold.class.getName());
    private final LockTransaction transaction;
    private final long token;
    private final ConnectionBudget budget;
    private final Runnable onEnd;
    private boolean released;
    private boolean ended;

    /**
     * @param budget    what the hold's connection counts against, given back with it at release
     * @param onEnd     run once, when the transaction ended: at release, or when its session was found dead
     */
    PessimisticRowHold(LockTransaction transaction, long token, ConnectionBudget budget, Runnable onEnd) {
        this.transaction = transaction;
        this.token = token;
        this.budget = budget;
        this.onEnd = onEnd;
    }

    @Override
    public long token() {
        return token;
    }

    @Override
    public synchronized boolean isAlive(Duration timeout) {
        if (released) {
            return true;
        }
        boolean alive;
        try {
            // a ping (Connector/J) or an empty query (PostgreSQL): neither ends nor changes the transaction
            alive = transaction.connection().isValid((int) Math.max(1, (timeout.toMillis() + 999) / 1000));
        } catch (SQLException | RuntimeException broken) {
            alive = false;
        }
        if (!alive) {
            // the row lock ended with the session, though the holder has not closed yet
            ended();
        }
        return alive;
    }

    private void ended() {
        if (!ended) {
            ended = true;
            onEnd.run();
        }
    }

    @Override
    public synchronized boolean release() {
        if (released) {
            return false;
        }
        released = true;
        try {
            transaction.commit();
            return true;
        } catch (SQLException lost) {
            // the core logs the loss at WARNING, naming the key and the holder; the database's error is kept here
            LOG.log(Level.FINE, "Commit of a pessimistic lock failed; the database had ended its transaction", lost);
            return false;
        } finally {
            transaction.close();
            budget.giveBack();
            ended();
        }
    }
}
