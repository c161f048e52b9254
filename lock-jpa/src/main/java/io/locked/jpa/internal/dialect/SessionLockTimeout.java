package io.locked.jpa.internal.dialect;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Bounds one statement's lock wait where the database has no bound of its own per statement: H2,
 * whose {@code LOCK_TIMEOUT} belongs to the session, and MySQL's creation of a row
 * ({@link #boundCreation}). The setting is put back when the statement is
 * done, so that a pooled connection returns to the pool as it came.
 *
 * <p>Every H2 {@code SET} empties the query caches of all sessions, so the setting is lowered only
 * when it is longer than the wait; a shorter one ends the wait early as busy, and the caller asks
 * again. The usual case reads the setting and sets nothing, and so puts nothing back.
 */
public final class SessionLockTimeout implements AutoCloseable {
    private static final SessionLockTimeout UNCHANGED = new SessionLockTimeout(null, null, 0);
    private final Connection connection;
    private final Dialect database;
    private final long previous;

    private SessionLockTimeout(Connection connection, Dialect database, long previous) {
        this.connection = connection;
        this.database = database;
        this.previous = previous;
    }

    /** Bounds the next statements' lock wait on this connection by waitMillis, until {@link #close()}. */
    public static SessionLockTimeout bound(Connection connection, Dialect database, long waitMillis) throws SQLException {
        if (database != Dialect.H2) {
            return UNCHANGED;
        }
        // H2 reads 0 as "its default" (2 s): the shortest real bound is 1 ms
        return lowerTo(connection, database, Math.max(1, waitMillis));
    }

    /**
     * Bounds the lock wait of a statement that creates a key's row, which may wait for another
     * transaction creating the same key. MySQL's other statements never wait ({@link Dialect#MYSQL});
     * this one, run once per key, is bounded through the session's {@code innodb_lock_wait_timeout},
     * in whole seconds, at least one.
     */
    public static SessionLockTimeout boundCreation(Connection connection, Dialect database, long waitMillis)
            throws SQLException {
        if (database != Dialect.MYSQL) {
            return bound(connection, database, waitMillis);
        }
        return lowerTo(connection, database, Math.max(1, waitMillis / 1000));
    }

    private static SessionLockTimeout lowerTo(Connection connection, Dialect database, long timeout)
            throws SQLException {
        long current;
        try (PreparedStatement read = connection.prepareStatement(database == Dialect.H2
                ? "SELECT LOCK_TIMEOUT()" : "SELECT @@SESSION.innodb_lock_wait_timeout");
             ResultSet value = read.executeQuery()) {
            value.next();
            current = value.getLong(1);
        }
        if (current >= 1 && current <= timeout) {
            return UNCHANGED;
        }
        set(connection, database, timeout);
        return new SessionLockTimeout(connection, database, current);
    }

    /** Puts the session's lock timeout back, if it was changed. */
    @Override
    public void close() throws SQLException {
        if (connection != null) {
            set(connection, database, previous);
        }
    }

    // a session setting: neither committed nor rolled back with the transaction it is set in
    private static void set(Connection connection, Dialect database, long timeout) throws SQLException {
        try (Statement setting = connection.createStatement()) {
            setting.execute(database == Dialect.H2 ? "SET LOCK_TIMEOUT " + timeout
                    : "SET SESSION innodb_lock_wait_timeout = " + timeout);
        }
    }
}
