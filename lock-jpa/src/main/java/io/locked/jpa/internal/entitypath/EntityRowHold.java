package io.locked.jpa.internal.entitypath;

import static io.locked.jpa.internal.entitypath.EntityRows.QUERY_TIMEOUT;

import io.locked.jpa.internal.connection.ConnectionBudget;
import io.locked.jpa.internal.transaction.UnitTransactions;
import io.locked.spi.PessimisticHold;
import jakarta.persistence.EntityManager;
import java.time.Duration;

/**
 * A pessimistic hold: the manager's open transaction, whose commit frees the row lock. A JTA
 * transaction is parked off the thread while the method runs, and taken back for each check and
 * for the release, on whichever thread makes them.
 */
final class EntityRowHold implements PessimisticHold {
    private final EntityManager manager;
    private final String key;
    private final long token;
    private final UnitTransactions transactions;
    private final EntityTransactions ownTransactions;
    private final ConnectionBudget budget;
    private UnitTransactions.Parked parked;
    private boolean released;

    /**
     * @param budget the pessimistic budget the hold took a connection of, given back when the hold ends
     */
    EntityRowHold(EntityManager manager, String key, long token, UnitTransactions.Parked parked,
                  UnitTransactions transactions, EntityTransactions ownTransactions, ConnectionBudget budget) {
        this.manager = manager;
        this.key = key;
        this.token = token;
        this.parked = parked;
        this.transactions = transactions;
        this.ownTransactions = ownTransactions;
        this.budget = budget;
    }

    @Override
    public long token() {
        return token;
    }

    // the watchdog's check and the holder's release may come from two threads; an
    // EntityManager serves one at a time
    @Override
    public synchronized boolean isAlive(Duration timeout) {
        if (released) {
            return true;
        }
        try {
            parked.resume();
        } catch (RuntimeException transactionGone) {
            return false; // ended by its transaction manager (a timeout): the row lock is gone
        }
        try {
            manager.createQuery("SELECT r.version FROM LockRow r WHERE r.key = :key")
                    .setParameter("key", key)
                    .setHint(QUERY_TIMEOUT, (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis())))
                    .getResultList();
            return true;
        } catch (RuntimeException sessionGone) {
            return false;
        } finally {
            parked = transactions.park();
        }
    }

    @Override
    public synchronized boolean release() {
        if (released) {
            return false;
        }
        released = true;
        try {
            parked.resume();
            transactions.commit(manager);
            return true;
        } catch (RuntimeException lost) {
            return false;
        } finally {
            ownTransactions.end(manager);
            budget.giveBack();
        }
    }
}
