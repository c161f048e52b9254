package io.locked.jpa.internal.nativepath;

import io.locked.jpa.internal.connection.ConnectionBudget;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.internal.transaction.LockTransaction;
import io.locked.jpa.internal.transaction.LookBeside;
import io.locked.jpa.internal.transaction.TokenWrites;
import io.locked.spi.PessimisticHold;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The lock's own transaction, open from acquisition to release, holding the key's row lock. The
 * watchdog's session check and the holder's release may come from two threads; a JDBC connection
 * serves one at a time, so both take this hold's monitor.
 *
 * <p>A commit whose reply never came may have landed: MariaDB and MySQL close a killed session's
 * socket without a word, so a forced release's {@code KILL} that reaches the session while its
 * commit is under way cuts off the reply of a commit the server made. The release then reads the
 * key's committed token ({@link LandedCommits}): the hold's own token there means its commit landed
 * (an ended session rolls its token back), and the hold was released, not lost.
 *
 * <p>With clock tokens ({@link TokenWrites}) most releases roll back instead: the token stays the
 * clock's reading, and nothing is written that must reach the disk. A rollback whose reply was lost
 * counts as lost (the safe side): nothing in the row tells it from a session ended before it.
 *
 * <p>With clock tokens the hold may also be passed to the next holder of its JVM ({@link #handOver}): one
 * statement in the same transaction, on the row it holds (MariaDB's plain UPDATE, else the lock statement
 * again), writes the next holder and its token, and the new holder's hold takes over the transaction, its
 * connection and its place in the budget.
 */
public final class PessimisticRowHold implements PessimisticHold {
    private static final Logger LOG = Logger.getLogger(PessimisticRowHold.class.getName());
    private final LockTransaction transaction;
    private final String key;
    private final String owner;
    private final long token;
    /** The statement that leaves a minimum hold in the row ({@code Dialect.holdRow}), after its settings. */
    private final SettingsThenUpdate holdRow;
    private final ConnectionBudget budget;
    private final Runnable onEnd;
    private final LandedCommits landed;
    private final TokenWrites tokenWrites;
    private final boolean clockBehind;
    private final KeyRows keyRows;
    private final NextHolder nextHolder;
    private boolean released;
    private boolean ended;
    /** A statement beside the row lock failed: the database may have rolled the whole transaction back. */
    private boolean transactionLost;
    /** Another row was looked at in the transaction: its lock is this holder's alone, never handed over. */
    private boolean rowsBeside;

    /**
     * @param owner         the acquisition's id, which a minimum hold's lease is in the name of
     * @param holdRow       the statement that leaves a minimum hold in the row
     * @param budget        what the hold's connection counts against, given back with it at release
     * @param onEnd         run once, when the transaction ended: at release, or when its session was found dead
     * @param landed        what tells whether a commit whose reply was lost landed
     * @param tokenWrites   whether the release commits the token or rolls it back
     * @param clockBehind   whether the clock read after the token was drawn was below it
     * @param keyRows       what locks a second row in the transaction
     * @param nextHolder    what draws the next holder's token where the hold is handed over
     */
    PessimisticRowHold(LockTransaction transaction, String key, String owner, long token, SettingsThenUpdate holdRow,
                       ConnectionBudget budget, Runnable onEnd, LandedCommits landed, TokenWrites tokenWrites,
                       boolean clockBehind, KeyRows keyRows, NextHolder nextHolder) {
        this.transaction = transaction;
        this.key = key;
        this.owner = owner;
        this.token = token;
        this.holdRow = holdRow;
        this.budget = budget;
        this.onEnd = onEnd;
        this.landed = landed;
        this.tokenWrites = tokenWrites;
        this.clockBehind = clockBehind;
        this.keyRows = keyRows;
        this.nextHolder = nextHolder;
    }

    /** Draws the next holder's token in a hold's transaction, on the row the transaction holds. */
    interface NextHolder {
        /**
         * @return what was drawn, raised where the clock was behind it; null if the row was not found
         *         held by this transaction
         */
        DrawnToken draw(Connection connection, String key, String holder, TokenWrites writes) throws SQLException;
    }

    /**
     * Only with clock tokens, whose releases roll back (a hold whose release must commit, as on a Galera
     * node, is never passed on): every token drawn in the transaction is the clock's reading then, or
     * the one before it plus one, so a crash in the middle of a run leaves the next holder's token, the
     * clock's reading after the transaction ended, above all of them. A statement that fails leaves the
     * transaction in doubt: the hold then counts as lost, as after a failed look at a second row. A hold that
     * locked other rows (a read/write lock's) is never passed on: those locks are not the next holder's. Nor is
     * one whose token was drawn behind the clock: its release must commit it (its successor's draw would
     * raise it again, by a second at each hand-over, since only a commit tells the store it need not).
     */
    @Override
    public synchronized PessimisticHold handOver(String nextOwner, String nextHolderText) {
        if (released || transactionLost || rowsBeside || clockBehind || !tokenWrites.clockTokens()) {
            return null;
        }
        DrawnToken drawn;
        try {
            drawn = nextHolder.draw(transaction.connection(), key, nextHolderText, tokenWrites);
        } catch (SQLException failure) {
            LOG.log(Level.FINE, "Handing a pessimistic lock over failed; its transaction counts as lost", failure);
            transactionLost = true;
            return null;
        }
        if (drawn == null || drawn.token() <= token) {
            transactionLost = true;
            return null;
        }
        released = true;
        return new PessimisticRowHold(transaction, key, nextOwner, drawn.token(), holdRow, budget, onEnd, landed,
                tokenWrites, drawn.clockBehind(), keyRows, nextHolder);
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
        if (transactionLost) {
            ended();
            return false;
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

    @Override
    public synchronized AnotherRow lockAnotherRow(String rowKey, boolean shared) {
        if (released) {
            throw new IllegalStateException("The hold of '" + key + "' was released: it cannot lock '" + rowKey + "'");
        }
        if (transactionLost) {
            throw LookBeside.transactionEnded(rowKey, key);
        }
        rowsBeside = true;
        try {
            return keyRows.lockBeside(transaction.connection(), rowKey, shared);
        } catch (SQLException failure) {
            transactionLost = true;
            return LookBeside.afterFailure(rowKey, key, failure);
        }
    }

    private void ended() {
        if (!ended) {
            ended = true;
            onEnd.run();
        }
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
        SQLException lost;
        try {
            if (transactionLost) {
                rollbackLostTransaction();
                return false;
            }
            if (holdAtLeast == null && !tokenWrites.mustCommit(key, token, clockBehind)) {
                transaction.rollback();
                return true;
            }
            if (holdAtLeast != null) {
                leaveHold(holdAtLeast);
            } else if (tokenWrites.clockTokens() && holdRow.settings() != null) {
                // a clock token is committed only where the row must keep it: the minimum hold's
                // settings make the commit wait for the disk where the lock transaction's would not
                try (Statement durable = transaction.connection().createStatement()) {
                    durable.execute(holdRow.settings());
                }
            }
            transaction.commit();
            tokenWrites.committed(key, token, clockBehind);
            return true;
        } catch (SQLException failure) {
            lost = failure;
        } finally {
            transaction.close();
            budget.giveBack();
            ended();
        }
        // read after the connection went back: the budget leaves the read a connection of the pool
        if ((LockConflicts.isSessionGone(lost) || LockConflicts.isInterruptedByItsSessionsEnd(lost))
                && landed.committed(key, token)) {
            LOG.log(Level.FINE, "The reply to a pessimistic lock's commit was lost, and the commit had landed", lost);
            return true;
        }
        // the core logs the loss at WARNING, naming the key and the holder; the database's error is kept here
        LOG.log(Level.FINE, "Release of a pessimistic lock failed; the database had ended its transaction", lost);
        return false;
    }

    /** Whatever the rollback says, the hold was lost: its commit, if any, could hold nothing of it. */
    private void rollbackLostTransaction() {
        try {
            transaction.rollback();
        } catch (SQLException alreadyEnded) {
            LOG.log(Level.FINE, "Rolling back a pessimistic lock's lost transaction failed", alreadyEnded);
        }
    }

    // one more statement in the same transaction, on a row this transaction has locked: it waits for
    // nothing. Its settings make the commit wait for the disk where the lock transaction's would not
    private void leaveHold(Duration holdAtLeast) throws SQLException {
        try (PreparedStatement hold = transaction.connection().prepareStatement(holdRow.sql())) {
            hold.setString(1, owner);
            hold.setLong(2, holdAtLeast.toNanos() / 1000);
            hold.setString(3, key);
            hold.setLong(4, token);
            holdRow.run(hold);
        }
    }
}
