package io.locked.jpa.internal.nativepath;

import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.SessionLockTimeout;
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

    KeyRows(Dialect database) {
        this.database = database;
    }

    boolean exists(Connection connection, String key) throws SQLException {
        try (PreparedStatement read = connection.prepareStatement(database.rowExists)) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                return row.next();
            }
        }
    }

    void insertIfAbsent(Connection connection, String key, long waitMillis) throws SQLException {
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
}
