package io.locked.jpa.internal.inspection;

import io.locked.api.LockMode;
import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.LockRow;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.FenceStatements;
import io.locked.jpa.internal.dialect.HeldRowToken;
import io.locked.jpa.internal.fence.FenceDetection;
import io.locked.jpa.internal.fence.JdbcFenceTransaction;
import io.locked.jpa.internal.transaction.LockTransaction;
import io.locked.spi.LockRowState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/**
 * Forced release on the native path: ends a key's current hold, whoever holds it. It ends a
 * pessimistic holder's session, only while the hold it read ({@link NativeInspection}) is still open
 * ({@link Dialect#endHold}): the database rolls its transaction back and frees the row. Then, in one
 * transaction, it frees the row, draws the key's next token and raises the key's fence row to it, so
 * that the old holder's fenced writes are refused.
 */
public final class ForcedRelease {
    /** The holder a forced release's lock-delay shows in inspection. */
    public static final String LOCK_DELAY_HOLDER = "(the lock-delay of a forced release)";
    /** How long a forced release waits for an ended session's row lock to go. */
    private static final int ROW_LOCK_WAIT_SECONDS = 5;
    private final LockConnections connections;
    private final Dialect database;
    private final NativeInspection inspection;
    private final InspectionCalls calls;

    /** @param inspection what reads the hold to end */
    public ForcedRelease(LockConnections connections, Dialect database, NativeInspection inspection) {
        this.connections = connections;
        this.database = database;
        this.inspection = inspection;
        this.calls = new InspectionCalls(connections);
    }

    /**
     * Ends the key's current hold, whoever holds it: the hold read here, and no other.
     *
     * @return the hold that was ended, empty if the key was free or the hold read ended by itself
     *         before it could be ended (the key may have a new holder by then)
     */
    public Optional<LockRowState> forceRelease(String key, Duration lockDelay) {
        Optional<LockRowState> held = inspection.inspect(key).filter(LockRowState::held);
        if (held.isEmpty()) {
            return Optional.empty();
        }
        LockRowState hold = held.get();
        if (hold.mode() == LockMode.PESSIMISTIC && !endSession(hold)) {
            // its session may be doing other work now, or hold the key again: that is not this hold
            return Optional.empty();
        }
        boolean fenced = fenceTableExists(key);
        try (LockTransaction transaction = LockTransaction.begin(connections, database.startsTransactionsBySql(),
                CallBounds.within(InspectionCalls.BOUND))) {
            Connection connection = transaction.connection();
            // the lock-delay and the raised fence must survive a failover where the user asked for it
            if (database.durableWriteSettings() != null) {
                try (Statement settings = connection.createStatement()) {
                    settings.execute(database.durableWriteSettings());
                }
            }
            LockedRow row = lockRow(connection, key);
            if (row != null && row.releasedItself(hold)) {
                return Optional.empty(); // its own release committed just before its session was ended
            }
            if (row == null && hold.mode() == LockMode.PESSIMISTIC) {
                // the ended hold had created the row, and its rollback took the row with it: the next
                // token must still come after the ended one's, and the fence must know it
                try (PreparedStatement create = database.insertIfAbsent(connection, key, ROW_LOCK_WAIT_SECONDS * 1000L)) {
                    create.execute();
                }
                row = lockRow(connection, key);
            }
            if (row == null || !row.stillHeldBy(hold)) {
                if (hold.mode() == LockMode.OPTIMISTIC) {
                    return Optional.empty(); // the lease ended by itself: nothing was forced
                }
                // the session is ended, and a new holder took the key at once with a later token: its
                // row stays as it is, and the fence refuses only the ended hold's late writes
                if (fenced) {
                    FenceDetection.of(connection).raise(new JdbcFenceTransaction(connection), key, endedToken(hold) + 1);
                }
                transaction.commit();
                return held;
            }
            long token = freeWithNextToken(connection, key, lockDelay, endedToken(hold));
            if (fenced) {
                FenceDetection.of(connection).raise(new JdbcFenceTransaction(connection), key, token);
            }
            transaction.commit();
            return held;
        } catch (SQLException failure) {
            throw new LockStoreUnavailableException(key, "forcing the release failed", failure);
        }
    }

    private static long endedToken(LockRowState hold) {
        return hold.token() == null ? 0 : hold.token();
    }

    /**
     * Ends the session of a pessimistic hold, if that hold is still open ({@link Dialect#endHold}).
     *
     * @return false if the hold had ended, and nothing was ended
     */
    private boolean endSession(LockRowState hold) {
        String key = hold.key();
        if (hold.databaseSession() == null) {
            throw new IllegalStateException("Cannot force the release of '" + key + "': the database does not tell"
                    + " which session holds it PESSIMISTIC (a holder that locked through the JPA path, or a"
                    + " transaction of another program). End that holder's process or transaction instead");
        }
        long session;
        try {
            session = Long.parseLong(hold.databaseSession());
        } catch (NumberFormatException garbled) {
            throw new IllegalStateException("Cannot force the release of '" + key + "': the holder column names no"
                    + " database session it can end: " + hold.databaseSession(), garbled);
        }
        long token = endedToken(hold);
        return calls.call(key, "ending the holder's database session " + session,
                connection -> database.endHold(connection, key, token, hold.holder(), session),
                "the lock table's database user may end only its own sessions unless it is allowed to end others':"
                        + " CONNECTION ADMIN on MariaDB, CONNECTION_ADMIN or SUPER on MySQL, pg_signal_backend on"
                        + " PostgreSQL, ADMIN on H2");
    }

    /** The key's row as a forced release finds it once it holds the row lock. */
    private record LockedRow(String owner, boolean leaseLive, long token) {
        /**
         * Whether the forced hold is still the row's: the lease forced must still be that owner's,
         * and a pessimistic hold's row must not have been leased since.
         */
        boolean stillHeldBy(LockRowState hold) {
            return hold.mode() == LockMode.OPTIMISTIC ? hold.owner().equals(owner) : !leaseLive;
        }

        /**
         * Whether a pessimistic hold ended by its own release rather than by its ended session: the
         * check and the end of the session are two steps on every database, and the holder may commit
         * between them. Its commit is the only way its token becomes the committed one: an ended
         * session rolls the token back.
         */
        boolean releasedItself(LockRowState hold) {
            return hold.mode() == LockMode.PESSIMISTIC && hold.token() != null && hold.token() == token;
        }
    }

    /**
     * Row-locks the key's row, waiting for an ended session's rollback.
     *
     * @return null if the key has no row
     */
    private LockedRow lockRow(Connection connection, String key) throws SQLException {
        String lock = "SELECT owner, CASE WHEN owner IS NOT NULL AND expires_at > " + database.now
                + " THEN 1 ELSE 0 END, token FROM " + LockRow.TABLE + " WHERE lock_key = ? FOR UPDATE";
        lock = database.withRowLockWait(lock, ROW_LOCK_WAIT_SECONDS);
        try (PreparedStatement read = connection.prepareStatement(lock)) {
            read.setString(1, key);
            // execute, not executeQuery: Connector/J refuses a SET STATEMENT there, though it returns rows
            read.execute();
            try (ResultSet row = read.getResultSet()) {
                return row.next() ? new LockedRow(row.getString(1), row.getInt(2) == 1, row.getLong(3)) : null;
            }
        }
    }

    /**
     * Frees the locked row and draws its next token, as an acquisition would, and above the ended
     * hold's: a pessimistic hold's token was rolled back with its session, and after a clock step back
     * the row's token plus one and the clock may both be at or below it. Returns the token. With a
     * lock-delay the row keeps a lease of no acquisition's until the delay has passed.
     */
    private long freeWithNextToken(Connection connection, String key, Duration lockDelay, long endedToken)
            throws SQLException {
        boolean delayed = !lockDelay.isZero();
        String free = "UPDATE " + LockRow.TABLE + " SET "
                + (delayed ? "owner = ?, holder = ?, acquired_at = " + database.now + ", expires_at = " + database.nowPlus("?")
                        : "owner = NULL, expires_at = NULL")
                + ", version = version + 1, token = GREATEST(token + 1, " + database.tokenMicros + ", ?) WHERE lock_key = ?";
        free = database.drawingTokenInUtc(free);
        try (PreparedStatement update = connection.prepareStatement(free)) {
            int next = 1;
            if (delayed) {
                update.setString(next++, UUID.randomUUID().toString());
                update.setString(next++, LOCK_DELAY_HOLDER);
                update.setLong(next++, lockDelay.toNanos() / 1000);
            }
            update.setLong(next++, endedToken + 1);
            update.setString(next, key);
            update.executeUpdate();
        }
        return HeldRowToken.read(connection, key);
    }

    private boolean fenceTableExists(String key) {
        return calls.call(key, "looking for the fence table", connection -> {
            try (Statement look = connection.createStatement();
                 ResultSet none = look.executeQuery(FenceStatements.PROBE)) {
                return none.next();
            } catch (SQLException failure) {
                if (LockConflicts.isMissingTable(failure)) {
                    return false;
                }
                throw failure;
            }
        });
    }
}
