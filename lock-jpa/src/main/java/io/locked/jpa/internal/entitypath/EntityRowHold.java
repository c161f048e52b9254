package io.locked.jpa.internal.entitypath;

import static io.locked.jpa.internal.entitypath.EntityRows.QUERY_TIMEOUT;

import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.internal.connection.ConnectionBudget;
import io.locked.jpa.internal.transaction.LookBeside;
import io.locked.jpa.internal.transaction.TokenWrites;
import io.locked.jpa.internal.transaction.UnitTransactions;
import io.locked.spi.PessimisticHold;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.time.Instant;

/**
 * A pessimistic hold: the manager's open transaction, whose end frees the row lock: a commit, or
 * with clock tokens mostly a rollback ({@link TokenWrites}). A JTA
 * transaction is parked off the thread while the method runs, and taken back for each check and
 * for the release, on whichever thread makes them.
 */
final class EntityRowHold implements PessimisticHold {
    private static final String HOLD_ROW = "UPDATE LockRow r SET r.owner = :owner, r.expiresAt = :expires,"
            + " r.version = r.version + 1 WHERE r.key = :key AND r.token = :token";
    /** How long a second row's lock, which never waits for a row lock, may take. */
    private static final int STATEMENT_MILLIS = 5000;
    private final EntityManager manager;
    private final Acquired acquired;
    private final String key;
    private final long token;
    private final UnitTransactions transactions;
    private final EntityTransactions ownTransactions;
    private final ConnectionBudget budget;
    private final TokenWrites tokenWrites;
    private final RowLocksWithoutWaiting sharedRows;
    private UnitTransactions.Parked parked;
    private boolean released;
    /** A statement beside the row lock failed: the database may have rolled the whole transaction back. */
    private boolean transactionLost;

    /**
     * @param budget      the pessimistic budget the hold took a connection of, given back when the hold ends
     * @param tokenWrites whether the release commits the token or rolls it back
     * @param sharedRows  how a second row is locked in the transaction
     */
    EntityRowHold(EntityManager manager, Acquired acquired, UnitTransactions.Parked parked,
                  UnitTransactions transactions, EntityTransactions ownTransactions, ConnectionBudget budget,
                  TokenWrites tokenWrites, RowLocksWithoutWaiting sharedRows) {
        this.manager = manager;
        this.acquired = acquired;
        this.key = acquired.key();
        this.token = acquired.token();
        this.parked = parked;
        this.transactions = transactions;
        this.ownTransactions = ownTransactions;
        this.budget = budget;
        this.tokenWrites = tokenWrites;
        this.sharedRows = sharedRows;
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
        if (transactionLost) {
            return false;
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
    public synchronized AnotherRow lockAnotherRow(String rowKey, boolean shared) {
        if (released) {
            throw new IllegalStateException("The hold of '" + key + "' was released: it cannot lock '" + rowKey + "'");
        }
        if (transactionLost) {
            throw LookBeside.transactionEnded(rowKey, key);
        }
        try {
            parked.resume();
        } catch (RuntimeException transactionGone) {
            throw new LockStoreUnavailableException(rowKey, "the transaction holding '" + key + "' has ended",
                    transactionGone);
        }
        try {
            return sharedRows.lock(manager, rowKey, shared, STATEMENT_MILLIS);
        } catch (RuntimeException failure) {
            transactionLost = true;
            return LookBeside.afterFailure(rowKey, key, failure);
        } finally {
            parked = transactions.park();
        }
    }

    /**
     * What the lock statement wrote into the row.
     *
     * @param owner      the acquisition's id, which a minimum hold's lease is in the name of
     * @param acquiredAt  the database's clock when the row was locked
     * @param clockBehind whether that clock was behind the row's last token (the token is its plus one)
     */
    record Acquired(String key, String owner, long token, Instant acquiredAt, boolean clockBehind) {
    }

    @Override
    public boolean release() {
        return release(null);
    }

    @Override
    public synchronized boolean release(Duration holdAtLeast) {
        if (released) {
            return false;
        }
        released = true;
        try {
            parked.resume();
            if (transactionLost) {
                transactions.rollbackIfActive(manager);
                return false;
            }
            if (holdAtLeast == null && !tokenWrites.mustCommit(key, token, acquired.clockBehind())) {
                transactions.rollbackIfActive(manager);
                return true;
            }
            if (holdAtLeast != null) {
                // on the row this transaction has locked: it waits for nothing
                manager.createQuery(HOLD_ROW).setParameter("owner", acquired.owner())
                        .setParameter("expires", EntityLeases.expiry(acquired.acquiredAt(), holdAtLeast))
                        .setParameter("key", key).setParameter("token", token)
                        .executeUpdate();
            }
            transactions.commit(manager);
            tokenWrites.committed(key, token, acquired.clockBehind());
            return true;
        } catch (RuntimeException lost) {
            return false;
        } finally {
            ownTransactions.end(manager);
            budget.giveBack();
        }
    }
}
