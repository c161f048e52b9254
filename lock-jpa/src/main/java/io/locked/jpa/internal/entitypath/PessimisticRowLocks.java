package io.locked.jpa.internal.entitypath;

import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.LockRow;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.ConnectionBudget;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.connection.PoolShortage;
import io.locked.jpa.internal.transaction.TokenWrites;
import io.locked.jpa.internal.transaction.UnitTransactions;
import io.locked.spi.PessimisticHold;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.time.Instant;

/**
 * Acquires a key pessimistically: row-locks it with {@code PESSIMISTIC_WRITE}, draws the token into
 * the managed row and hands the open transaction to an {@link EntityRowHold}. Holders take at most
 * all but one of the pool's connections where its size is known ({@link ConnectionBudget}).
 */
final class PessimisticRowLocks {
    private static final LockRowAccess ROWS = LockRowAccess.rows();
    private final EntityManagers managers;
    private final UnitTransactions transactions;
    private final EntityTransactions ownTransactions;
    private final EntityRows rows;
    private final ConnectionBudget budget;
    private final PoolShortage shortage;
    private final Duration connectionWait;
    private final TokenWrites tokenWrites;
    private final RowLocksWithoutWaiting sharedRows;

    /**
     * @param connections    the unit's pool as Locked sees it, for the budget; null where Locked cannot
     *                       reach it (no budget then)
     * @param connectionWait how long an acquisition may wait for the budget, whatever its own wait
     * @param tokenWrites    whether a release commits its token or rolls it back
     * @param sharedRows     how a hold locks a second row
     */
    PessimisticRowLocks(EntityManagers managers, UnitTransactions transactions, EntityTransactions ownTransactions,
                        EntityRows rows, LockConnections connections, Duration connectionWait, TokenWrites tokenWrites,
                        RowLocksWithoutWaiting sharedRows) {
        this.managers = managers;
        this.transactions = transactions;
        this.ownTransactions = ownTransactions;
        this.rows = rows;
        this.budget = ConnectionBudget.forPool(connections == null ? 0 : connections.maximumSize());
        this.shortage = connections == null ? null : new PoolShortage(connections);
        this.connectionWait = connectionWait;
        this.tokenWrites = tokenWrites;
        this.sharedRows = sharedRows;
    }

    PessimisticHold lock(String key, String owner, String holder, Duration dbWait) {
        // the provider borrows the connection with the pool's own timeout; only the budget waits here
        CallBounds bounds = CallBounds.forWait(dbWait, Duration.ZERO);
        CallBounds budgetBounds = CallBounds.forWait(dbWait, connectionWait);
        if (!budget.take(key, budgetBounds.borrowNanos())) {
            throw shortage.budgetSpent(key, budgetBounds.borrowWait(), budget);
        }
        EntityManager manager;
        try {
            manager = managers.open();
        } catch (RuntimeException | Error failure) {
            budget.giveBack();
            throw failure;
        }
        boolean handedOver = false;
        try {
            transactions.beginHold(manager);
            LockRow row = rows.lockRow(manager, key, bounds);
            if (row == null) {
                // create the row in a short transaction of its own on this manager, then lock it
                transactions.rollbackIfActive(manager);
                rows.createRow(manager, key, bounds);
                transactions.beginHold(manager);
                row = rows.lockRow(manager, key, bounds);
                if (row == null) {
                    return null; // deleted again by a cleanup in between: the caller tries again
                }
            }
            // read after the grant, so that a holder granted meanwhile and rolled back drew an older clock
            Instant now = rows.now(manager, key, bounds);
            if (ROWS.leasedAt(row, now)) {
                return null; // a live lease holds the key
            }
            long token = DatabaseClock.nextToken(row.getToken(), now);
            // the clock was read once, before the token: it is behind where the token is the row's plus one
            long clock = DatabaseClock.micros(now);
            boolean clockBehind = token > clock;
            if (clockBehind) {
                // every store checks, whatever its own setting: stores of both settings may share the table
                token = tokenWrites.behindClock(key, token, clock);
            }
            ROWS.lockedBy(row, token, now, holder);
            manager.flush();
            EntityRowHold hold = new EntityRowHold(manager, new EntityRowHold.Acquired(key, owner, token, now, clockBehind),
                    transactions.park(), transactions, ownTransactions, budget, tokenWrites, sharedRows);
            handedOver = true;
            return hold;
        } catch (RuntimeException failure) {
            if (EntityConflicts.isBusy(failure)) {
                return null;
            }
            throw new LockStoreUnavailableException(key, "pessimistic lock failed", failure);
        } finally {
            if (!handedOver) {
                ownTransactions.end(manager);
                budget.giveBack();
            }
        }
    }
}
