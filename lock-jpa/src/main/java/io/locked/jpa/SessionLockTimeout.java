package io.locked.jpa;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Bounds one statement's lock wait where the database has no bound of its own per statement: H2,
 * whose {@code LOCK_TIMEOUT} belongs to the session. The setting is put back when the statement is
 * done, so that a pooled connection returns to the pool as it came.
 *
 * <p>Every H2 {@code SET} empties the query caches of all sessions, so the setting is lowered only
 * when it is longer than the wait; a shorter one ends the wait early as busy, and the caller asks
 * again. The usual case reads the setting and sets nothing, and so puts nothing back.
 */
final class SessionLockTimeout implements AutoCloseable {
    private static final SessionLockTimeout UNCHANGED = new SessionLockTimeout(null, 0);
    private final Connection connection;
    private final long previous;

    private SessionLockTimeout(Connection connection, long previous) {
        this.connection = connection;
        this.previous = previous;
    }

    /** Bounds the next statements' lock wait on this connection by waitMillis, until {@link #close()}. */
    static SessionLockTimeout bound(Connection connection, LockDatabase database, long waitMillis) throws SQLException {
        if (database != LockDatabase.H2) {
            return UNCHANGED;
        }
        // H2 reads 0 as "its default" (2 s): the shortest real bound is 1 ms
        long timeout = Math.max(1, waitMillis);
        long current;
        try (PreparedStatement read = connection.prepareStatement("SELECT LOCK_TIMEOUT()");
             ResultSet value = read.executeQuery()) {
            value.next();
            current = value.getLong(1);
        }
        if (current >= 1 && current <= timeout) {
            return UNCHANGED;
        }
        set(connection, timeout);
        return new SessionLockTimeout(connection, current);
    }

    /** Puts the session's lock timeout back, if it was changed. */
    @Override
    public void close() throws SQLException {
        if (connection != null) {
            set(connection, previous);
        }
    }

    // a session setting: neither committed nor rolled back with the transaction it is set in
    private static void set(Connection connection, long millis) throws SQLException {
        try (Statement setting = connection.createStatement()) {
            setting.execute("SET LOCK_TIMEOUT " + millis);
        }
    }
}
