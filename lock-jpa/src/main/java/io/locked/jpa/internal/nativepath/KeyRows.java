package io.locked.jpa.internal.nativepath;

import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.internal.connection.NetworkTimeouts;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.SharedRowStatements;
import io.locked.jpa.internal.dialect.SessionLockTimeout;
import io.locked.spi.PessimisticHold;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A key's lock row on a connection the caller already has: whether it is there, and its creation
 * where it is missing, which a pessimistic lock and a lease take both need before the row is theirs.
 */
final class KeyRows {
    private final Dialect database;
    /** What locks a second row in a transaction; null where the database has no shared row locks. */
    private final SharedRowStatements beside;

    KeyRows(Dialect database) {
        this.database = database;
        this.beside = SharedRowStatements.of(database);
    }

    /** @return whether the database has shared row locks, which {@link #lockBeside} needs */
    boolean sharesRows() {
        return beside != null;
    }

    /**
     * Locks the key's row in the connection's open transaction, beside what it holds, without waiting
     * ({@link PessimisticHold#lockAnotherRow}). A row it skips is told from a missing one by a plain read.
     */
    PessimisticHold.AnotherRow lockBeside(Connection connection, String key, boolean shared) throws SQLException {
        if (!sharesRows()) {
            throw new UnsupportedOperationException(database + " has no shared row locks");
        }
        try (PreparedStatement lock = connection.prepareStatement(shared ? beside.shared() : beside.exclusive())) {
            lock.setString(1, key);
            try (ResultSet row = lock.executeQuery()) {
                if (row.next()) {
                    return PessimisticHold.AnotherRow.LOCKED;
                }
            }
        }
        return exists(connection, key) ? PessimisticHold.AnotherRow.BUSY : PessimisticHold.AnotherRow.ABSENT;
    }

    boolean exists(Connection connection, String key) throws SQLException {
        try (PreparedStatement read = connection.prepareStatement(database.rowExists)) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                return row.next();
            }
        }
    }

    /**
     * Creates the key's row unless it is there; a concurrent creation of the same key that committed
     * first is fine.
     *
     * @throws SQLException busy ({@link LockConflicts#isBusy}) where another transaction held the row
     *         (creating or deleting it) for longer than the wait: the caller's try is busy, and the
     *         connection takes no further statement, since H2 reports a lock wait that ran out as an
     *         {@code SQLTimeoutException}, after which HikariCP has closed its handle
     */
    void insertIfAbsent(Connection connection, String key, long waitMillis) throws SQLException {
        // the client waits for the server to end the creation's lock wait, which it may do later than
        // the call's bound: a creator that holds the row longer is then "busy", not a lost connection
        int answerMillis = (int) Math.min(Integer.MAX_VALUE,
                database.rowCreationServerMillis(waitMillis) + CallBounds.STATEMENT_ALLOWANCE.toMillis() / 2);
        int callTimeout = NetworkTimeouts.atLeast(connection, answerMillis);
        try (SessionLockTimeout bounded = database.boundRowCreation(connection, waitMillis);
             PreparedStatement insert = database.insertIfAbsent(connection, key, waitMillis)) {
            insert.execute();
        } catch (SQLException raceOrFailure) {
            if (!LockConflicts.isDuplicate(raceOrFailure)) {
                throw raceOrFailure;
            }
            if (!connection.getAutoCommit()) {
                connection.rollback();
            }
        }
        // not after a failure: the connection may be gone, and the pool drops it with its timeout
        NetworkTimeouts.restore(connection, callTimeout, answerMillis);
    }
}
