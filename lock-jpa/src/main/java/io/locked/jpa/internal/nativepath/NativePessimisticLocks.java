package io.locked.jpa.internal.nativepath;

import io.locked.api.LockMode;
import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.LockRow;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.ConnectionBudget;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.connection.NoFreeConnection;
import io.locked.jpa.internal.connection.PoolShortage;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.GaleraNode;
import io.locked.jpa.internal.transaction.LockTransaction;
import io.locked.jpa.internal.transaction.TokenWrites;
import io.locked.spi.NoConnectionException;
import io.locked.spi.PessimisticHold;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * Pessimistic acquisition on the native path: one statement that row-locks the key and draws its
 * token, in the lock's own transaction, which the returned {@link PessimisticRowHold} keeps open
 * until its release (a commit, or with clock tokens mostly a rollback: {@link TokenWrites}). The acquisitions take at most all but one of the pool's connections where its
 * size can be read ({@link ConnectionBudget}).
 */
final class NativePessimisticLocks {
    private static final String COMMITTED_TOKEN = "SELECT token FROM " + LockRow.TABLE + " WHERE lock_key = ?";
    /** The bound of a hand-over's lock statement, which finds the row locked by its own transaction. */
    private static final long HAND_OVER_WAIT_MILLIS = 1000;
    /** How long a release's read-back waits for an ended session's row lock. */
    private static final int READ_BACK_LOCK_WAIT_SECONDS = 2;
    /** token, key: on the row this transaction has locked, so it waits for nothing. */
    private static final String RAISE_TOKEN = "UPDATE " + LockRow.TABLE + " SET token = ? WHERE lock_key = ?";
    private final LockConnections connections;
    private final Dialect database;
    private final KnownGaleraNode galera;
    private final PoolShortage shortage;
    private final KeyRows keyRows;
    private final Duration connectionWait;
    private final ConnectionBudget budget;
    private final TokenWrites tokenWrites;
    private final KnownTokenClock tokenClock;
    /** The statement that leaves a minimum hold at release, after the settings the database sends with it. */
    private final SettingsThenUpdate holdRow;
    /** Sends the lock statement and reads what it drew from its row. */
    private final LockStatement lockStatement;
    /** The dialect's form of a lock statement that starts its transaction, or null ({@link LockTransaction#started}). */
    private final UnaryOperator<String> transactionStartWith;

    /**
     * @param connectionWait how long an acquisition may wait for a connection, whatever its own wait
     * @param tokenWrites    whether a release commits its token or rolls it back
     * @param tokenClock     whether the server reads the token clock before the row lock after all
     */
    NativePessimisticLocks(LockConnections connections, Dialect database, KnownGaleraNode galera,
                           PoolShortage shortage, KeyRows keyRows, Duration connectionWait, TokenWrites tokenWrites,
                           KnownTokenClock tokenClock) {
        this.connections = connections;
        this.database = database;
        this.galera = galera;
        this.shortage = shortage;
        this.keyRows = keyRows;
        this.connectionWait = connectionWait;
        this.budget = ConnectionBudget.forPool(connections.maximumSize());
        this.tokenWrites = tokenWrites;
        this.tokenClock = tokenClock;
        this.holdRow = SettingsThenUpdate.of(database.holdRowSettings(), database.holdRow);
        this.lockStatement = new LockStatement(database);
        // only a statement sent as text can be wrapped so: a prepared one would run in autocommit, its lock gone at once
        this.transactionStartWith = database.inlinesLockStatements() ? database.transactionStartWith() : null;
    }

    /** @return whether holds may be handed over: with clock tokens, whose releases roll back */
    boolean handsOver() {
        return tokenWrites.clockTokens();
    }

    /** @return the hold, or null if the key stayed busy for the wait */
    PessimisticHold lock(String key, String owner, String holder, Duration dbWait) {
        CallBounds bounds = CallBounds.forWait(dbWait, connectionWait);
        GaleraNode galera = this.galera.forLockCall(key, bounds);
        if (galera != null) {
            // the manager asks first; this is reached when the database was down when it asked
            galera.refusal(LockMode.PESSIMISTIC).ifPresent(reason -> {
                throw new IllegalStateException("Cannot lock '" + key + "' PESSIMISTIC: " + reason);
            });
        }
        boolean clockAtStatementStart = tokenClock.atStatementStart(key, bounds);
        if (!budget.take(key, bounds.borrowNanos())) {
            throw shortage.budgetSpent(key, bounds.borrowWait(), budget);
        }
        LockTransaction transaction = null;
        boolean handedOver = false;
        try {
            LockedRow locked;
            try {
                locked = lockRow(key, holder, bounds, galera != null);
            } catch (SQLException failure) {
                CallBounds left = LockConflicts.isSessionGone(failure) ? bounds.forSecondTry(failure) : null;
                if (left == null) {
                    throw failure;
                }
                // a pooled session ended while idle: nothing was locked on it, so lock on another, within
                // what is left of the call's bounds (none after a timeout)
                locked = lockRow(key, holder, left, galera != null);
            }
            transaction = locked.transaction();
            DrawnToken drawnAtLock = locked.drawn();
            if (drawnAtLock == null) {
                // busy: closing rolls back, undoing any token the statement wrote
                return null;
            }
            transaction.boundStatements(CallBounds.brief());
            if (clockAtStatementStart) {
                drawnAtLock = drawnAtLock.redrawnAfterLock(database, transaction.connection(), key);
            }
            // on a Galera node a rollback may not say that a replicated write ended the transaction
            // first, where a commit fails: every release commits there; and where the lock statement
            // reads its clock before the row lock, only commits keep a later token above a used one
            TokenWrites writes = galera == null && !clockAtStatementStart ? tokenWrites
                    : tokenWrites.committingEveryRelease();
            DrawnToken drawn = raisedWhereBehind(drawnAtLock, writes, transaction.connection(), key);
            Runnable onEnd = () -> { };
            if (galera != null) {
                try {
                    galera.holdOn(drawn.node());
                } catch (IllegalStateException secondNode) {
                    throw new LockStoreUnavailableException(key, secondNode.getMessage(), secondNode);
                }
                onEnd = () -> galera.ended(drawn.node());
            }
            handedOver = true;
            return new PessimisticRowHold(transaction, key, owner, drawn.token(), holdRow, budget, onEnd,
                    this::committed, writes, drawn.clockBehind(), keyRows, this::drawForNextHolder);
        } catch (NoFreeConnection none) {
            shortage.noConnection(key, "its pessimistic lock", bounds.borrowWait());
            throw new NoConnectionException(none.getMessage() + " within " + bounds.borrowWait());
        } catch (SQLException failure) {
            if (LockConflicts.isBusy(failure)) {
                return null;
            }
            throw new LockStoreUnavailableException(key, "pessimistic lock failed", failure);
        } finally {
            if (!handedOver) {
                if (transaction != null) {
                    transaction.close();
                }
                budget.giveBack();
            }
        }
    }

    // every store checks, whatever its own setting: stores of both settings may share the table
    private static DrawnToken raisedWhereBehind(DrawnToken drawn, TokenWrites writes, Connection connection, String key)
            throws SQLException {
        return drawn.clockBehind() ? drawn.raisedTo(writes.behindClock(key, drawn.token(), drawn.clock()), connection, key,
                RAISE_TOKEN) : drawn;
    }

    /**
     * The next holder's token, in a hold's transaction, on the row held by this very transaction and free of
     * any lease: the next holder written into it and a token above the last one, from the clock read now.
     * Where the database has a plain hand-over ({@code handOverRowText}, MariaDB), that UPDATE, which writes
     * only where the clock is above the row's token; otherwise, and where the clock was not (it then says how
     * far behind), the lock statement again. It waits for nothing, the row being this transaction's; its bound
     * is a second all the same, as a zero one costs PostgreSQL a statement more (a lock with NOWAIT).
     */
    private DrawnToken drawForNextHolder(Connection connection, String key, String holder, TokenWrites writes)
            throws SQLException {
        DrawnToken handedOver = DrawnToken.byPlainHandOver(database, connection, holder, key);
        if (handedOver != null) {
            return handedOver;
        }
        DrawnToken drawn = lockStatement.draw(connection, UnaryOperator.identity(), key, holder, HAND_OVER_WAIT_MILLIS,
                false);
        return drawn == null || !drawn.free() ? null : raisedWhereBehind(drawn, writes, connection, key);
    }

    /**
     * Whether the key's committed token is the given one, read on a connection of its own: false
     * where the read fails too, so that a hold whose commit cannot be told landed counts as lost.
     *
     * <p>A {@code KILL} closes the session's socket at once, while the server may still be making the
     * commit it interrupted: a plain read then sees the token before it. So where the plain read does
     * not find the hold's token, a locking read looks again: it waits for the row lock of the ended
     * session, which ends only with its commit or its rollback, and reads the row as that left it
     * (seen in the randomized run on MySQL 8: a forced release that waited for the row lock found the
     * hold's commit, while the holder's plain read had not and told a loss). It waits at most
     * {@value #READ_BACK_LOCK_WAIT_SECONDS} s: a new holder's row lock may keep it out, and the hold
     * then counts as lost.
     */
    private boolean committed(String key, long token) {
        try {
            return readCommitted(key, token, COMMITTED_TOKEN) || readCommitted(key, token,
                    database.withRowLockWait(COMMITTED_TOKEN + " FOR UPDATE", READ_BACK_LOCK_WAIT_SECONDS));
        } catch (SQLException | RuntimeException unknown) {
            return false;
        }
    }

    private boolean readCommitted(String key, long token, String sql) throws SQLException {
        LockTransaction.Work<Boolean> read = connection -> {
            try (PreparedStatement select = connection.prepareStatement(sql)) {
                select.setString(1, key);
                // execute, not executeQuery: Connector/J refuses a SET STATEMENT there, though it returns rows
                select.execute();
                try (ResultSet row = select.getResultSet()) {
                    return row.next() && row.getLong(1) == token;
                }
            }
        };
        try {
            return LockTransaction.autocommit(connections, CallBounds.brief(), read);
        } catch (SQLException deadConnection) {
            // the pool may lend the very connection whose session was ended, when the error that told of
            // the end (MySQL's 1317) did not make the pool drop it: read once more, on another connection
            if (!LockConflicts.isSessionGone(deadConnection)) {
                throw deadConnection;
            }
            return LockTransaction.autocommit(connections, CallBounds.brief(), read);
        }
    }

    /** A lock transaction and what its lock statement drew: null if the key was busy. */
    private record LockedRow(LockTransaction transaction, DrawnToken drawn) {
    }

    /** Begins a lock transaction and row-locks the key in it; the transaction is closed if that fails. */
    private LockedRow lockRow(String key, String holder, CallBounds bounds, boolean galera) throws SQLException {
        // off Galera, MariaDB's lock statement starts the transaction, in its round trip (LockTransaction.started)
        LockTransaction transaction = LockTransaction.begin(connections, database.startsTransactionsBySql(),
                galera ? null : transactionStartWith, bounds);
        try {
            return new LockedRow(transaction, lockRow(transaction, key, holder, bounds, galera));
        } catch (SQLException | RuntimeException failure) {
            transaction.close();
            throw failure;
        }
    }

    /**
     * Row-locks the key and draws its token in one statement; null if a live lease holds the key
     * (or a cleanup deleted the row in between: the caller tries again).
     */
    private DrawnToken lockRow(LockTransaction transaction, String key, String holder, CallBounds bounds, boolean galera)
            throws SQLException {
        // each statement waits for what is left of the caller's wait, never the whole wait again
        Connection connection = transaction.connection();
        DrawnToken drawn = lockStatement.draw(connection, transaction::started, key, holder, bounds.remainingWaitMillis(),
                galera);
        if (drawn == null && (database.answersByInsertId() || !keyRows.exists(connection, key))) {
            // H2 and MySQL only: create the row in a short transaction of its own on this connection (a
            // second connection could wait forever on a pool that holders have drained), then lock it.
            // The rollback first also ends the gap lock that MySQL's look at the missing row took
            transaction.rollback();
            transaction.beginAgain();
            keyRows.insertIfAbsent(connection, key, bounds.remainingWaitMillis());
            transaction.commit();
            transaction.beginAgain();
            drawn = lockStatement.draw(connection, transaction::started, key, holder, bounds.remainingWaitMillis(),
                    galera);
        }
        if (drawn != null && drawn.createdUnseen()) {
            // PostgreSQL: other sessions would see no row, and so no hold, until this one ends
            transaction.commit();
            transaction.beginAgain();
            drawn = lockStatement.draw(connection, transaction::started, key, holder, bounds.remainingWaitMillis(),
                    galera);
        }
        return drawn != null && drawn.free() ? drawn : null;
    }
}
