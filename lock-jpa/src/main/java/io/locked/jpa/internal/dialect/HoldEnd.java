package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockRow;
import io.locked.jpa.internal.transaction.LockTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Ends the database session of one pessimistic hold, the one inspection read, only while that hold
 * is still open. Its holder may have released the key since, and its pool lent the same session to
 * other work (a holder of another key, the application's transaction): that work must not be ended.
 *
 * <p>Which hold: on MariaDB, MySQL and H2 a hold is its lock statement's uncommitted change of the
 * row, holder (with its session id, {@link HolderSession#MARK}) and a new token. The hold is open
 * exactly while the row read uncommitted still has that token and holder, and the committed row
 * has a lower token or no row yet (MariaDB's lock statement creates a missing row): a released hold
 * has committed its token, a rolled back one left no change, and a row that something else
 * row-locks (a cleanup batch, another operator's list, the session's next transaction) shows the
 * committed row, whatever session its holder column names. On PostgreSQL the row's {@code xmax} is
 * the transaction of the session.
 *
 * <p>Check and end as close together as each database allows, on one connection:
 * <ul>
 *   <li>MariaDB: one anonymous compound statement reads the row both ways and ends the session;</li>
 *   <li>PostgreSQL: one statement joins the row's {@code xmax} to the session's transaction;</li>
 *   <li>H2: the uncommitted read, then one statement that reads the committed row and ends the
 *   session in the same step;</li>
 *   <li>MySQL, which has neither compound statements outside stored programs nor a function that
 *   ends a session: both reads, then {@code KILL}. A hold that ends in that one round trip, and a
 *   session that starts other work before the {@code KILL} arrives, would lose that work.</li>
 * </ul>
 * H2 and MySQL read uncommitted before they read committed: between those two statements, a hold
 * could only be missed by being rolled back while its session lives on (not by a release, which
 * commits).
 */
public final class HoldEnd {
    private static final String UNCOMMITTED = "SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED";
    private static final String COMMITTED = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED";
    /** The holder column as the lock statement wrote it, from holder text and session id. */
    private static final String HOLDER_COLUMN = "CONCAT(?, '" + HolderSession.MARK + "', ?)";
    /** key, token, holder text, session: 1 if the row has the hold's change. */
    private static final String WRITTEN = "SELECT COUNT(*) FROM " + LockRow.TABLE
            + " WHERE lock_key = ? AND token = ? AND holder = " + HOLDER_COLUMN;
    /**
     * key, token: 0 if no committed row has the hold's token or a later one (a hold that created
     * the row, on MariaDB, has no committed row at all).
     */
    private static final String REACHED = "SELECT COUNT(*) FROM " + LockRow.TABLE + " WHERE lock_key = ? AND token >= ?";
    private static final InlinedStatement MYSQL_WRITTEN = new InlinedStatement(WRITTEN);
    private static final InlinedStatement MYSQL_REACHED = new InlinedStatement(REACHED);
    /**
     * key, token, holder text, session, key, token, session. SET TRANSACTION sets the level of the next
     * transaction only, which with autocommit is the next statement.
     */
    private static final InlinedStatement MARIADB_END = new InlinedStatement("BEGIN NOT ATOMIC"
            + " DECLARE written, reached INT; " + UNCOMMITTED + ";"
            + " SELECT COUNT(*) INTO written FROM " + LockRow.TABLE + " WHERE lock_key = ? AND token = ? AND holder = "
            + HOLDER_COLUMN + "; "
            + COMMITTED + "; SELECT COUNT(*) INTO reached FROM " + LockRow.TABLE + " WHERE lock_key = ? AND token >= ?;"
            + " IF written = 1 AND reached = 0 THEN KILL CONNECTION ?; END IF; SELECT written = 1 AND reached = 0; END");
    /** MariaDB's and MySQL's answer to KILL of a session that ended meanwhile. */
    private static final int UNKNOWN_THREAD = 1094;
    private final Dialect database;

    public HoldEnd(Dialect database) {
        this.database = database;
    }

    /**
     * Ends the hold's session if the hold is still open. The connection is in autocommit.
     *
     * @param token  the hold's token (ignored on PostgreSQL)
     * @param holder the hold's holder text, without the session mark (ignored on PostgreSQL)
     * @return false if the hold had ended, and nothing was ended
     */
    public boolean end(Connection connection, String key, long token, String holder, long session) throws SQLException {
        try {
            return switch (database) {
                case MARIADB -> count(connection, MARIADB_END.with(key, token, holder, session, key, token, session)) == 1;
                case MYSQL -> mySqlEnd(connection, key, token, holder, session);
                case H2 -> written(connection, key, token, holder, session) && abortUnreached(connection, key, token, session);
                case POSTGRESQL -> terminate(connection, key, session);
            };
        } catch (SQLException failure) {
            if (failure.getErrorCode() == UNKNOWN_THREAD
                    && (database == Dialect.MARIADB || database == Dialect.MYSQL)) {
                // the hold was open at the check, and its session ended by itself just after
                return true;
            }
            throw failure;
        }
    }

    private static boolean mySqlEnd(Connection connection, String key, long token, String holder, long session)
            throws SQLException {
        execute(connection, UNCOMMITTED);
        if (count(connection, MYSQL_WRITTEN.with(key, token, holder, session)) != 1) {
            return false;
        }
        execute(connection, COMMITTED);
        if (count(connection, MYSQL_REACHED.with(key, token)) != 0) {
            return false;
        }
        execute(connection, "KILL CONNECTION " + session);
        return true;
    }

    private static boolean written(Connection connection, String key, long token, String holder, long session)
            throws SQLException {
        return LockTransaction.readAt(connection, Connection.TRANSACTION_READ_UNCOMMITTED, c -> {
            try (PreparedStatement read = c.prepareStatement(WRITTEN)) {
                read.setString(1, key);
                read.setLong(2, token);
                read.setString(3, holder);
                read.setLong(4, session);
                try (ResultSet row = read.executeQuery()) {
                    return row.next() && row.getInt(1) == 1;
                }
            }
        });
    }

    // ABORT_SESSION is a function: the committed row is read and the session ended in one statement
    private static boolean abortUnreached(Connection connection, String key, long token, long session)
            throws SQLException {
        return LockTransaction.readAt(connection, Connection.TRANSACTION_READ_COMMITTED, c -> {
            try (PreparedStatement end = c.prepareStatement("SELECT ABORT_SESSION(CAST(? AS INT)) FROM (VALUES 1)"
                    + " WHERE NOT EXISTS (" + REACHED.replace("COUNT(*)", "1") + ")")) {
                end.setLong(1, session);
                end.setString(2, key);
                end.setLong(3, token);
                try (ResultSet ended = end.executeQuery()) {
                    // false: the session was gone already, and its hold with it
                    return ended.next();
                }
            }
        });
    }

    private static boolean terminate(Connection connection, String key, long session) throws SQLException {
        try (PreparedStatement end = connection.prepareStatement("SELECT pg_terminate_backend(a.pid) FROM "
                + LockRow.TABLE + " l JOIN pg_stat_activity a ON a.backend_xid = l.xmax"
                + " WHERE l.lock_key = ? AND a.pid = ?")) {
            end.setString(1, key);
            end.setInt(2, (int) session);
            try (ResultSet ended = end.executeQuery()) {
                if (!ended.next()) {
                    return false;
                }
                if (!ended.getBoolean(1)) {
                    throw new SQLException("pg_terminate_backend(" + session + ") answered false");
                }
                return true;
            }
        }
    }

    private static int count(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            // execute: a compound statement's rows come as its first result set
            statement.execute(sql);
            try (ResultSet row = statement.getResultSet()) {
                return row != null && row.next() ? row.getInt(1) : 0;
            }
        }
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
