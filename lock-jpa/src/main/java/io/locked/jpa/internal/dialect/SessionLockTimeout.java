package io.locked.jpa.internal.dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Bounds one statement's lock wait where the database has no bound of its own per statement: H2,
 * whose {@code LOCK_TIMEOUT} belongs to the session, and MySQL's creation of a row and its renewals
 * ({@link Dialect#boundLockWait}, {@link Dialect#boundRowCreation}, {@link Dialect#boundRenewal}). The
 * setting is put back when the statement is done, so that a pooled connection returns to the pool
 * as it came.
 *
 * <p>Every H2 {@code SET} empties the query caches of all sessions, so the setting is lowered only
 * when it is longer than the wait; a shorter one ends the wait early as busy, and the caller asks
 * again. The usual case reads the setting and sets nothing, and so puts nothing back.
 */
public final class SessionLockTimeout implements AutoCloseable {
    /** Nothing was changed, and nothing is put back. */
    static final SessionLockTimeout UNCHANGED = new SessionLockTimeout(null, null);
    private final Connection connection;
    /** The statement that puts the setting back. */
    private final String putBack;

    private SessionLockTimeout(Connection connection, String putBack) {
        this.connection = connection;
        this.putBack = putBack;
    }

    /**
     * Lowers the session's lock timeout to the given value, in the setting's own unit, unless it is
     * that short already.
     *
     * @param read a query of the session's setting
     * @param set  the statement that sets it, followed by the value
     */
    static SessionLockTimeout lowerTo(Connection connection, String read, String set, long timeout)
            throws SQLException {
        long current;
        try (PreparedStatement query = connection.prepareStatement(read);
             ResultSet value = query.executeQuery()) {
            value.next();
            current = value.getLong(1);
        }
        if (current >= 1 && current <= timeout) {
            return UNCHANGED;
        }
        execute(connection, set + timeout);
        return new SessionLockTimeout(connection, set + current);
    }

    /**
     * Changes the session's setting in one statement that also keeps the value it had, where the
     * database keeps it for the session (a user variable): one round trip fewer than reading it first.
     *
     * @param keepAndSet the statement that keeps the setting's value and changes it
     * @param putBack    the statement that sets the kept value again
     */
    static SessionLockTimeout keptAndSet(Connection connection, String keepAndSet, String putBack) throws SQLException {
        execute(connection, keepAndSet);
        return new SessionLockTimeout(connection, putBack);
    }

    /** Puts the session's lock timeout back, if it was changed. */
    @Override
    public void close() throws SQLException {
        if (connection != null) {
            execute(connection, putBack);
        }
    }

    // a session setting: neither committed nor rolled back with the transaction it is set in
    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement setting = connection.createStatement()) {
            setting.execute(sql);
        }
    }
}
