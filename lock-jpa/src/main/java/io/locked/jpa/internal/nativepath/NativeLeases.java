package io.locked.jpa.internal.nativepath;

import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.internal.connection.NoFreeConnection;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.SessionLockTimeout;
import io.locked.spi.Lease;
import io.locked.spi.NoConnectionException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * Optimistic leases on the native path: taking, renewing, handing over and releasing a lease, each
 * one autocommit statement ({@link StoreCalls}), with the creation of a missing row before a take
 * and the settlement of a hand-over whose reply was lost. Renewals: {@link NativeRenewals}.
 */
final class NativeLeases {
    // the row being handed over is the giver's: only a pessimistic acquirer checking it holds it, briefly
    private static final long HAND_OVER_LOCK_WAIT_MILLIS = 1000;
    private final Dialect database;
    private final KnownGaleraNode galera;
    private final StoreCalls store;
    private final KeyRows keyRows;
    private final Duration connectionWait;
    private final KnownTokenClock tokenClock;
    /** MySQL's takes, and MariaDB's of the keys whose rows were met. */
    private final InsertIdTakes insertIdTakes;
    /** The plain release, after the settings the database sends with it. */
    private final SettingsThenUpdate release;
    /** The release that leaves a minimum hold: its commit waits for the disk, and the standbys where asked. */
    private final SettingsThenUpdate hold;

    /**
     * @param connectionWait how long a take may wait for a connection, whatever its own wait
     * @param tokenClock     whether the server reads the token clock before the row lock after all
     */
    NativeLeases(Dialect database, KnownGaleraNode galera, StoreCalls store, KeyRows keyRows, Duration connectionWait,
                 KnownTokenClock tokenClock) {
        this.database = database;
        this.galera = galera;
        this.store = store;
        this.keyRows = keyRows;
        this.connectionWait = connectionWait;
        this.tokenClock = tokenClock;
        this.insertIdTakes = new InsertIdTakes(database);
        boolean inline = database.inlinesLockStatements();
        this.release = SettingsThenUpdate.of(database.releaseSettings(), database.releaseLease, inline);
        this.hold = SettingsThenUpdate.of(database.durableWriteSettings(), database.holdLease, inline);
    }

    Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
        // the take and the creation of a missing row may each meet a pessimistic holder's row lock,
        // and each needs a connection; together they wait no longer than the bounds allow
        CallBounds bounds = CallBounds.forWait(dbWait, connectionWait);
        try {
            LeaseTake take = tryTake(key, owner, holder, lease, bounds);
            if (take.noRow() && (database.takeTellsMissingRow() || !rowExists(key, bounds))) {
                if (!ensureRow(key, bounds)) {
                    return null;
                }
                take = tryTake(key, owner, holder, lease, bounds);
            }
            return take.lease();
        } catch (LockStoreUnavailableException failure) {
            if (failure.getCause() instanceof NoFreeConnection none) {
                // StoreCalls warned
                throw new NoConnectionException(none.getMessage() + " within " + bounds.borrowWait());
            }
            throw failure;
        }
    }

    private LeaseTake tryTake(String key, String owner, String holder, Duration lease, CallBounds bounds) {
        boolean galera = this.galera.forLockCall(key, bounds) != null;
        // a take that queued for a pessimistic holder's row lock would draw its token from a clock read
        // before that holder's grant: where the server reads it so, the take does not queue (busy at once)
        boolean queues = !tokenClock.atStatementStart(key, bounds);
        try {
            return store.callTake(key, bounds, connection -> {
                LeaseTake took = takeOn(connection, key, owner, holder, lease, queues ? bounds.remainingWaitMillis() : 0, galera);
                return queues || took.lease() == null ? took : new LeaseTake(redrawnAfterGrant(connection, took.lease()), false);
            });
        } catch (LockStoreUnavailableException failure) {
            // the wait for a pessimistic holder's row lock ran out: busy, like a live lease
            if (LockConflicts.isBusy(failure)) {
                return LeaseTake.HELD;
            }
            throw failure;
        }
    }

    private LeaseTake takeOn(Connection connection, String key, String owner, String holder, Duration lease,
                             long givenWaitMillis, boolean galera) throws SQLException {
        long sentNanos = System.nanoTime();
        LeaseTake byCount = galera ? null : insertIdTakes.take(connection, key, owner, holder, micros(lease), givenWaitMillis);
        if (byCount != null) {
            return byCount;
        }
        // the upsert waits for what the row take left of the wait, never the whole wait again
        long waitMillis = Math.max(0, givenWaitMillis - (System.nanoTime() - sentNanos) / 1_000_000);
        LeaseTake took;
        if (database.inlinesLockStatements()) {
            try (Statement take = connection.createStatement()) {
                take.execute(database.takeLeaseText(owner, holder, micros(lease), key, waitMillis, galera));
                try (ResultSet taken = take.getResultSet()) {
                    took = take(taken, key, owner);
                }
            }
        } else {
            try (SessionLockTimeout bounded = database.boundLockWait(connection, waitMillis);
                 PreparedStatement take = database.takeLease(connection, owner, holder, micros(lease), key, waitMillis);
                 ResultSet taken = ReturnedRows.ofTake(take, database)) {
                took = take(taken, key, owner);
            }
        }
        if (!took.noRow()) {
            insertIdTakes.rowMet(key);
        }
        return took;
    }

    /**
     * Where the server reads the token clock at the statement's start, a take that must not queue for a
     * pessimistic holder's row lock may still have waited for it an instant: InnoDB grants a lock released
     * between the statement's enqueueing and its zero-length wait's check (seen under load: a token 274 µs
     * below one that a holder granted meanwhile drew, used and rolled back). Its token, read before that
     * grant, is raised to the clock read by a statement of its own, which starts after the take's grant.
     */
    private Lease redrawnAfterGrant(Connection connection, Lease taken) throws SQLException {
        return new Lease(taken.key(), taken.owner(), DrawnToken.redraw(database, connection, taken.key())[0], taken.version());
    }

    /** A take's rows: the caller's lease, a held key, or no row at all. */
    private static LeaseTake take(ResultSet taken, String key, String owner) throws SQLException {
        if (!taken.next()) {
            return LeaseTake.NO_ROW;
        }
        // another owner's row, or the existence marker: the key is held
        return owner.equals(taken.getString(3))
                ? new LeaseTake(new Lease(key, owner, taken.getLong(1), taken.getLong(2)), false) : LeaseTake.HELD;
    }

    private boolean rowExists(String key, CallBounds bounds) {
        return store.call(key, "reading the lock row", bounds, connection -> keyRows.exists(connection, key));
    }

    /** @return false if another transaction held the missing row past the wait (creating or deleting it): busy */
    private boolean ensureRow(String key, CallBounds bounds) {
        try {
            store.call(key, "creating the lock row", bounds, connection -> {
                keyRows.insertIfAbsent(connection, key, bounds.remainingWaitMillis());
                return null;
            });
            return true;
        } catch (LockStoreUnavailableException failure) {
            if (LockConflicts.isBusy(failure)) {
                return false;
            }
            throw failure;
        }
    }

    Lease handOverLease(Lease lease, String newOwner, String holder, Duration duration) {
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
            token = store.call(key, "checking a hand-over", CallBounds.brief(),
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
        return store.call(lease.key(), "handing the lease over", CallBounds.brief(), connection -> {
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
                    long token = InsertIds.of(handOver);
                    // 0: a driver that does not report the insert id, and the row is the new owner's now
                    return token != 0 ? token : ownersToken(connection, lease.key(), newOwner);
                }
                handOver.execute();
                if (database.settingsFirst()) {
                    handOver.getMoreResults();
                }
                try (ResultSet row = handOver.getResultSet()) {
                    return row != null && row.next() ? row.getLong(1) : null;
                }
            }
        }, failure -> false);
    }

    private Long ownersToken(Connection connection, String key, String owner) throws SQLException {
        try (PreparedStatement read = ownerStatement(connection, database.ownersToken, key, owner);
             ResultSet row = read.executeQuery()) {
            return row.next() ? row.getLong(1) : null;
        }
    }

    /**
     * Frees the lease, or with a minimum hold leaves it ending that long after it was taken. Only the
     * plain release may skip the wait for the disk where the database allows it
     * ({@code RowStatements.releaseSettings}, which says why); the minimum hold must survive a crash.
     *
     * @param holdAtLeast the minimum hold, or null to free the row
     */
    boolean releaseLease(Lease lease, Duration holdAtLeast) {
        return store.call(lease.key(), "releasing the lease", CallBounds.brief(), connection -> {
            int count = holdAtLeast == null
                    ? release.update(connection, lease.key(), lease.owner(), lease.token())
                    : hold.update(connection, micros(holdAtLeast), lease.key(), lease.owner(), lease.token());
            if (count == 1) {
                return true;
            }
            // expired but not taken over: still ours to free, though the holder must learn it was lost.
            // A transaction of its own that waits for the disk as ever: rare, and its lease has run out anyway
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

    private static long micros(Duration duration) {
        return duration.toNanos() / 1000;
    }
}
