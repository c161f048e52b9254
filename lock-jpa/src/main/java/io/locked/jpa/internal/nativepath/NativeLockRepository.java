package io.locked.jpa.internal.nativepath;

import io.locked.api.LockMode;
import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.LockRow;
import io.locked.jpa.internal.cleanup.NativeIdleRows;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.ConnectionBudget;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.connection.NoFreeConnection;
import io.locked.jpa.internal.connection.PoolShortage;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.GaleraNode;
import io.locked.jpa.internal.dialect.SessionLockTimeout;
import io.locked.jpa.internal.inspection.ForcedRelease;
import io.locked.jpa.internal.inspection.NativeInspection;
import io.locked.jpa.internal.schema.SchemaScript;
import io.locked.jpa.internal.transaction.LockTransaction;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRowState;
import io.locked.spi.NoConnectionException;
import io.locked.spi.PessimisticHold;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The native path: the lock rows ({@link LockRow}) of a JPA persistence unit through statements
 * written for their database ({@link Dialect}). Each operation is the fewest plain JDBC
 * statements that do it, on a connection from the unit's own pool: an optimistic take, renewal or
 * release is one autocommit statement; a pessimistic acquisition is one statement that row-locks
 * the key and writes its token, in the lock's own transaction, and its release is the commit. The
 * table comes from the schema script of the {@link Dialect} ({@link SchemaScript}).
 *
 * <p>Every call is bounded ({@link CallBounds}): an acquisition waits for a pooled connection within
 * its own wait or the connection wait, whichever is longer, and throws {@link NoConnectionException}
 * (with a warning naming the pool) when none came; each
 * statement runs under a network timeout, of the wait plus a short allowance for an acquisition, of
 * a third of the lease for a renewal, of the allowance for a release. Pessimistic acquisitions,
 * which keep their connection while they wait and while they hold, take at most all but one of the
 * pool's connections where its size can be read ({@link ConnectionBudget}): renewals and releases
 * always find the last one.
 */
public final class NativeLockRepository implements LockRepository {
    // the row being handed over is the giver's: only a pessimistic acquirer checking it holds it, briefly
    private static final long HAND_OVER_LOCK_WAIT_MILLIS = 1000;
    private final LockConnections connections;
    private final Dialect database;
    private final ConnectionBudget budget;
    private final PoolShortage shortage;
    private final NativeInspection inspection;
    private final ForcedRelease forcedRelease;
    private final boolean galeraSingleWriter;
    private final Duration connectionWait;
    /**
     * The Galera node behind the unit, empty on any other server; null while not known (the
     * database was down at start-up: the first lock finds out).
     */
    private volatile Optional<GaleraNode> galera;

    /**
     * @param connections        the unit's connections
     * @param database           which statements to use
     * @param galeraSingleWriter whether every JVM's lock statements reach one Galera node
     * @param connectionWait     how long an acquisition may wait for a connection, whatever its own wait
     * @throws IllegalStateException if the lock table is there but would not compare keys exactly
     *                               (the message names the statement that converts it)
     */
    public NativeLockRepository(LockConnections connections, Dialect database, boolean galeraSingleWriter,
                         Duration connectionWait) {
        this.connections = connections;
        this.connectionWait = connectionWait;
        this.database = database;
        this.galeraSingleWriter = galeraSingleWriter;
        this.galera = database.mayBeGaleraNode() ? null : Optional.empty();
        try {
            galera(CallBounds.brief());
        } catch (IllegalStateException unreachable) {
            // a database that is down fails the first lock clearly, which asks again
        }
        database.checkLockTable(connections);
        this.budget = ConnectionBudget.forPool(connections.maximumSize());
        this.shortage = new PoolShortage(connections);
        this.inspection = new NativeInspection(connections, database);
        this.forcedRelease = new ForcedRelease(connections, database, inspection);
    }

    @Override
    public Optional<String> refusal(LockMode mode) {
        Optional<GaleraNode> known = galera;
        // not known: the database was down at start-up, and the lock call itself asks (lockPessimistic)
        return known == null ? Optional.empty() : known.flatMap(node -> node.refusal(mode));
    }

    /**
     * @return the Galera node, or empty on any other server
     * @throws IllegalStateException if the database cannot be asked within the bounds
     */
    private Optional<GaleraNode> galera(CallBounds bounds) {
        Optional<GaleraNode> known = galera;
        if (known == null) {
            synchronized (this) {
                known = galera;
                if (known == null) {
                    known = Optional.ofNullable(GaleraNode.detect(connections, galeraSingleWriter, bounds));
                    galera = known;
                }
            }
        }
        return known;
    }

    /** The Galera node for a lock call, null on any other server. */
    private GaleraNode galeraFor(String key, CallBounds bounds) {
        try {
            return galera(bounds).orElse(null);
        } catch (IllegalStateException unreachable) {
            throw new LockStoreUnavailableException(key, unreachable.getMessage(), unreachable.getCause());
        }
    }

    /** @return the database family in use */
    public Dialect database() {
        return database;
    }

    @Override
    public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
        CallBounds bounds = CallBounds.forWait(dbWait, connectionWait);
        GaleraNode galera = galeraFor(key, bounds);
        if (galera != null) {
            // the manager asks first; this is reached when the database was down when it asked
            galera.refusal(LockMode.PESSIMISTIC).ifPresent(reason -> {
                throw new IllegalStateException("Cannot lock '" + key + "' PESSIMISTIC: " + reason);
            });
        }
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
                if (!LockConflicts.isSessionGone(failure)) {
                    throw failure;
                }
                // a pooled session ended while idle: nothing was locked on it, so lock on another
                locked = lockRow(key, holder, bounds, galera != null);
            }
            transaction = locked.transaction();
            DrawnToken drawn = locked.drawn();
            if (drawn == null) {
                // busy: closing rolls back, undoing any token the statement wrote
                return null;
            }
            transaction.boundStatements(CallBounds.brief());
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
            return new PessimisticRowHold(transaction, drawn.token(), budget, onEnd);
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

    /** A lock transaction and what its lock statement drew: null if the key was busy. */
    private record LockedRow(LockTransaction transaction, DrawnToken drawn) {
    }

    /** Begins a lock transaction and row-locks the key in it; the transaction is closed if that fails. */
    private LockedRow lockRow(String key, String holder, CallBounds bounds, boolean galera) throws SQLException {
        LockTransaction transaction = LockTransaction.begin(connections, database.startsTransactionsBySql(), bounds);
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
        DrawnToken drawn = drawToken(connection, key, holder, bounds.remainingWaitMillis(), galera);
        if (drawn == null && (database.answersByInsertId() || !rowExists(connection, key))) {
            // H2 and MySQL only: create the row in a short transaction of its own on this connection (a
            // second connection could wait forever on a pool that holders have drained), then lock it.
            // The rollback first also ends the gap lock that MySQL's look at the missing row took
            transaction.rollback();
            transaction.beginAgain();
            insertIfAbsent(connection, key, bounds.remainingWaitMillis());
            transaction.commit();
            transaction.beginAgain();
            drawn = drawToken(connection, key, holder, bounds.remainingWaitMillis(), galera);
        }
        if (drawn != null && drawn.createdUnseen()) {
            // PostgreSQL: other sessions would see no row, and so no hold, until this one ends
            transaction.commit();
            transaction.beginAgain();
            drawn = drawToken(connection, key, holder, bounds.remainingWaitMillis(), galera);
        }
        return drawn != null && drawn.free() ? drawn : null;
    }

    /** The lock statement's answer: null when it returned no row (MySQL: found no row). */
    private DrawnToken drawToken(Connection connection, String key, String holder, long waitMillis, boolean galera)
            throws SQLException {
        if (database.inlinesLockStatements()) {
            try (Statement lock = connection.createStatement()) {
                String sql = database.lockRowText(holder, key, waitMillis, galera);
                if (database.answersByInsertId()) {
                    if (lock.executeUpdate(sql, Statement.RETURN_GENERATED_KEYS) == 0) {
                        return null;
                    }
                    try (ResultSet drawn = lock.getGeneratedKeys()) {
                        // no token drawn: a live lease holds the key
                        return drawn.next() ? new DrawnToken(drawn.getLong(1), true, null) : new DrawnToken(0, false, null);
                    }
                }
                // execute, not executeQuery: Connector/J refuses an INSERT there, even one that returns rows
                lock.execute(sql);
                try (ResultSet row = lock.getResultSet()) {
                    return drawnToken(row, galera);
                }
            }
        }
        try (SessionLockTimeout bounded = database.boundLockWait(connection, waitMillis);
             PreparedStatement lock = connection.prepareStatement(database.lockRow())) {
            int parameter = 1;
            if (database.settingsFirst()) {
                lock.setString(parameter++, database.lockWaitParameter(waitMillis));
            }
            lock.setString(parameter++, holder);
            lock.setString(parameter, key);
            try (ResultSet row = execute(lock)) {
                return drawnToken(row, galera);
            }
        }
    }

    private DrawnToken drawnToken(ResultSet row, boolean galera) throws SQLException {
        if (!row.next()) {
            return null;
        }
        return new DrawnToken(row.getLong(1), row.getInt(2) == 1, galera ? row.getString(3) : null,
                database.createsRowUnseen() && row.getBoolean(3));
    }

    /**
     * @param node          the Galera node holding the row lock, null on other servers
     * @param createdUnseen whether the statement created the row, which others cannot see until it commits
     */
    private record DrawnToken(long token, boolean free, String node, boolean createdUnseen) {
        public DrawnToken(long token, boolean free, String node) {
            this(token, free, node, false);
        }
    }

    /** Runs a statement that returns rows, past the result of its settings where they come first. */
    private ResultSet execute(PreparedStatement statement) throws SQLException {
        // execute, not executeQuery: Connector/J refuses an INSERT there, even one that returns rows
        statement.execute();
        if (database.settingsFirst()) {
            statement.getMoreResults();
        }
        return statement.getResultSet();
    }

    private void ensureRow(String key, CallBounds bounds) {
        storeCall(key, "creating the lock row", bounds, connection -> {
            insertIfAbsent(connection, key, bounds.remainingWaitMillis());
            return null;
        });
    }

    private void insertIfAbsent(Connection connection, String key, long waitMillis) throws SQLException {
        try (SessionLockTimeout bounded = database.boundRowCreation(connection, waitMillis);
             PreparedStatement insert = database.insertIfAbsent(connection, key, waitMillis)) {
            insert.execute();
        } catch (SQLException raceOrFailure) {
            // a concurrent insert of the same key is fine; the next read shows whether the row is there
            if (!LockConflicts.isBusy(raceOrFailure) && !LockConflicts.isDuplicate(raceOrFailure)) {
                throw raceOrFailure;
            }
            if (!connection.getAutoCommit()) {
                connection.rollback();
            }
        }
    }

    @Override
    public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
        // the take and the creation of a missing row may each meet a pessimistic holder's row lock,
        // and each needs a connection; together they wait no longer than the bounds allow
        CallBounds bounds = CallBounds.forWait(dbWait, connectionWait);
        try {
            Take take = tryTake(key, owner, holder, lease, bounds);
            if (take.noRow() && (database.takeTellsMissingRow() || !rowExists(key, bounds))) {
                ensureRow(key, bounds);
                take = tryTake(key, owner, holder, lease, bounds);
            }
            return take.lease();
        } catch (LockStoreUnavailableException failure) {
            if (failure.getCause() instanceof NoFreeConnection none) {
                // storeCall warned
                throw new NoConnectionException(none.getMessage() + " within " + bounds.borrowWait());
            }
            throw failure;
        }
    }

    /** A take's answer: the lease if taken, else whether the statement returned no row at all. */
    private record Take(Lease lease, boolean noRow) {
        public static final Take HELD = new Take(null, false);
        public static final Take NO_ROW = new Take(null, true);
    }

    private Take tryTake(String key, String owner, String holder, Duration lease, CallBounds bounds) {
        boolean galera = galeraFor(key, bounds) != null;
        try {
            return storeCall(key, "taking the lease", bounds, connection -> {
                long waitMillis = bounds.remainingWaitMillis();
                if (database.answersByInsertId()) {
                    return takeByInsertId(connection, key, owner, holder, lease);
                }
                if (database.inlinesLockStatements()) {
                    try (Statement take = connection.createStatement()) {
                        take.execute(database.takeLeaseText(owner, holder, micros(lease), key, waitMillis, galera));
                        try (ResultSet taken = take.getResultSet()) {
                            return take(taken, key, owner);
                        }
                    }
                }
                try (SessionLockTimeout bounded = database.boundLockWait(connection, waitMillis);
                     PreparedStatement take = database.takeLease(connection, owner, holder, micros(lease), key, waitMillis)) {
                    try (ResultSet taken = execute(take)) {
                        return take(taken, key, owner);
                    }
                }
            });
        } catch (LockStoreUnavailableException failure) {
            // the wait for a pessimistic holder's row lock ran out: busy, like a live lease
            if (LockConflicts.isBusy(failure)) {
                return Take.HELD;
            }
            throw failure;
        }
    }

    /** A take's rows: the caller's lease, a held key, or no row at all. */
    private static Take take(ResultSet taken, String key, String owner) throws SQLException {
        if (!taken.next()) {
            return Take.NO_ROW;
        }
        // another owner's row, or the existence marker: the key is held
        return owner.equals(taken.getString(3))
                ? new Take(new Lease(key, owner, taken.getLong(1), taken.getLong(2)), false) : Take.HELD;
    }

    /** MySQL's take: it tells a missing row by the rows it found, and the token by the insert id. */
    private Take takeByInsertId(Connection connection, String key, String owner, String holder, Duration lease)
            throws SQLException {
        try (Statement take = connection.createStatement()) {
            if (take.executeUpdate(database.takeLeaseText(owner, holder, micros(lease), key, 0, false),
                    Statement.RETURN_GENERATED_KEYS) == 0) {
                return Take.NO_ROW;
            }
            try (ResultSet token = take.getGeneratedKeys()) {
                // the statement does not read the row's version back: 0, a diagnostic only
                return token.next() ? new Take(new Lease(key, owner, token.getLong(1), 0), false) : Take.HELD;
            }
        }
    }

    private boolean rowExists(String key, CallBounds bounds) {
        return storeCall(key, "reading the lock row", bounds, connection -> rowExists(connection, key));
    }

    private boolean rowExists(Connection connection, String key) throws SQLException {
        try (PreparedStatement read = connection.prepareStatement(database.rowExists)) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                return row.next();
            }
        }
    }

    @Override
    public Lease renewLease(Lease lease, Duration duration) {
        int renewed = storeCall(lease.key(), "renewing the lease", CallBounds.forRenewal(duration), connection -> {
            try (PreparedStatement renew = connection.prepareStatement(database.renewLease)) {
                renew.setLong(1, micros(duration));
                renew.setString(2, lease.key());
                renew.setString(3, lease.owner());
                renew.setLong(4, lease.token());
                return renew.executeUpdate();
            }
        });
        return renewed == 0 ? null : new Lease(lease.key(), lease.owner(), lease.token(), lease.version() + 1);
    }

    @Override
    public Lease handOverLease(Lease lease, String newOwner, String holder, Duration duration) {
        Long token;
        try {
            token = handOver(lease, newOwner, holder, duration);
        } catch (LockStoreUnavailableException replyLost) {
            // applied or not: a lost reply must not leave the row in the successor's name unknown to both
            token = ownersTokenAfter(replyLost, lease.key(), newOwner);
        }
        return token == null ? null : new Lease(lease.key(), newOwner, token, lease.version() + 1);
    }

    /**
     * A hand-over's reply was lost: the row is the successor's if the statement was applied. Read once
     * more; if that fails too, the first failure stands.
     */
    private Long ownersTokenAfter(LockStoreUnavailableException replyLost, String key, String newOwner) {
        if (replyLost.getCause() instanceof NoFreeConnection) {
            throw replyLost; // never sent
        }
        Long token;
        try {
            token = storeCall(key, "checking a hand-over", CallBounds.brief(),
                    connection -> ownersToken(connection, key, newOwner));
        } catch (LockStoreUnavailableException stillDown) {
            replyLost.addSuppressed(stillDown);
            throw replyLost;
        }
        if (token == null) {
            throw replyLost; // not applied: the release that follows frees the row
        }
        return token;
    }

    private Long handOver(Lease lease, String newOwner, String holder, Duration duration) {
        return storeCall(lease.key(), "handing the lease over", CallBounds.brief(), connection -> {
            boolean asInsertId = database.handOverTokenAsInsertId();
            try (PreparedStatement handOver = asInsertId
                    ? connection.prepareStatement(database.handOverLease(), Statement.RETURN_GENERATED_KEYS)
                    : connection.prepareStatement(database.handOverLease())) {
                int parameter = 1;
                if (database.settingsFirst()) {
                    handOver.setString(parameter++, database.lockWaitParameter(HAND_OVER_LOCK_WAIT_MILLIS));
                }
                handOver.setString(parameter++, newOwner);
                handOver.setString(parameter++, holder);
                handOver.setLong(parameter++, micros(duration));
                handOver.setString(parameter++, lease.key());
                handOver.setString(parameter++, lease.owner());
                handOver.setLong(parameter, lease.token());
                if (asInsertId) {
                    if (handOver.executeUpdate() != 1) {
                        return null;
                    }
                    try (ResultSet keys = handOver.getGeneratedKeys()) {
                        if (keys.next()) {
                            return keys.getLong(1);
                        }
                    }
                    // a driver that does not report the insert id: the row is the new owner's now
                    return ownersToken(connection, lease.key(), newOwner);
                }
                handOver.execute();
                if (database.settingsFirst()) {
                    handOver.getMoreResults();
                }
                try (ResultSet row = handOver.getResultSet()) {
                    return row != null && row.next() ? row.getLong(1) : null;
                }
            }
        }, false);
    }

    private Long ownersToken(Connection connection, String key, String owner) throws SQLException {
        try (PreparedStatement read = ownerStatement(connection, database.ownersToken, key, owner);
             ResultSet row = read.executeQuery()) {
            return row.next() ? row.getLong(1) : null;
        }
    }

    @Override
    public boolean releaseLease(Lease lease) {
        return storeCall(lease.key(), "releasing the lease", CallBounds.brief(), connection -> {
            try (PreparedStatement release = ownerStatement(connection, database.releaseLease, lease.key(), lease.owner())) {
                release.setLong(3, lease.token());
                if (release.executeUpdate() == 1) {
                    return true;
                }
            }
            // expired but not taken over: still ours to free, though the holder must learn it was lost
            try (PreparedStatement free = ownerStatement(connection, database.freeOwnExpiredLease, lease.key(), lease.owner())) {
                free.executeUpdate();
            }
            return false;
        });
    }

    private static PreparedStatement ownerStatement(Connection connection, String sql, String key, String owner)
            throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        statement.setString(1, key);
        statement.setString(2, owner);
        return statement;
    }

    @Override
    public void checkReachable(Duration timeout) {
        // the empty key is never locked: a read that waits for no row lock
        storeCall("(readiness)", "reading the lock table", CallBounds.within(timeout), connection -> {
            try (PreparedStatement read = connection.prepareStatement(
                    "SELECT COUNT(*) FROM " + LockRow.TABLE + " WHERE lock_key = ''")) {
                try (ResultSet answer = read.executeQuery()) {
                    return answer.next();
                }
            }
        });
    }

    @Override
    public Optional<LockRowState> inspect(String key) {
        return inspection.inspect(key);
    }

    @Override
    public List<LockRowState> list(String prefix, String afterKey, int limit) {
        return inspection.list(prefix, afterKey, limit);
    }

    @Override
    public Optional<LockRowState> forceRelease(String key) {
        return forcedRelease.forceRelease(key);
    }

    @Override
    public int deleteIdleRows(Duration idleFor) {
        if (idleFor == null || idleFor.isNegative() || idleFor.isZero()) {
            throw new IllegalArgumentException("Idle time must be positive, was " + idleFor);
        }
        return new NativeIdleRows(connections, database).delete(idleFor);
    }

    /**
     * Runs the work in autocommit, and once more on another connection if the server said it had
     * ended the first one's session ({@link LockConflicts#isSessionEnded}): a pooled session ended
     * while idle fails only the statement that next uses it, and that statement did not run.
     */
    private <T> T storeCall(String key, String what, CallBounds bounds, LockTransaction.Work<T> work) {
        return storeCall(key, what, bounds, work, true);
    }

    /**
     * @param again whether the work may run once more after an ended session; not a hand-over, which
     *              settles a lost reply by reading the owner ({@link #handOverLease})
     */
    private <T> T storeCall(String key, String what, CallBounds bounds, LockTransaction.Work<T> work, boolean again) {
        try {
            try {
                return LockTransaction.autocommit(connections, bounds, work);
            } catch (SQLException failure) {
                if (!again || !LockConflicts.isSessionEnded(failure)) {
                    throw failure;
                }
                return LockTransaction.autocommit(connections, bounds, work);
            }
        } catch (NoFreeConnection none) {
            shortage.noConnection(key, what, bounds.borrowWait());
            throw new LockStoreUnavailableException(key, what + " found no free connection within " + bounds.borrowWait(), none);
        } catch (SQLException failure) {
            throw new LockStoreUnavailableException(key, what + " failed", failure);
        }
    }

    private static long micros(Duration duration) {
        return duration.toNanos() / 1000;
    }
}
