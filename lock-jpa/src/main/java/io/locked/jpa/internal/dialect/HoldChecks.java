package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockRow;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The reads that tell whether a pessimistic hold is still open, for ending it
 * ({@link HolderSessions#endHold}) on MariaDB, MySQL and H2. There a hold is its lock statement's
 * uncommitted change of the row: holder (with its session id, {@link HolderSession#MARK}) and a new
 * token. The hold is open exactly while the row read uncommitted still has that token and holder,
 * and the committed row has a lower token or no row yet (MariaDB's lock statement creates a missing
 * row): a released hold has committed its token, a rolled back one left no change, and a row that
 * something else row-locks (a cleanup batch, another operator's list, the session's next
 * transaction) shows the committed row, whatever session its holder column names. Uncommitted is
 * read before committed: between those two reads, a hold could only be missed by being rolled back
 * while its session lives on (not by a release, which commits).
 */
final class HoldChecks {
    static final String UNCOMMITTED = "SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED";
    static final String COMMITTED = "SET TRANSACTION ISOLATION LEVEL READ COMMITTED";
    /** The holder column as the lock statement wrote it, from holder text and session id. */
    static final String HOLDER_COLUMN = "CONCAT(?, '" + HolderSession.MARK + "', ?)";
    /** key, token, holder text, session: 1 if the row has the hold's change. */
    static final String WRITTEN = "SELECT COUNT(*) FROM " + LockRow.TABLE
            + " WHERE lock_key = ? AND token = ? AND holder = " + HOLDER_COLUMN;
    /**
     * key, token: 0 if no committed row has the hold's token or a later one (a hold that created
     * the row, on MariaDB, has no committed row at all).
     */
    static final String REACHED = "SELECT COUNT(*) FROM " + LockRow.TABLE + " WHERE lock_key = ? AND token >= ?";

    private HoldChecks() {
    }

    /** @return the first column of the statement's first row, 0 if none */
    static int count(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            // execute: a compound statement's rows come as its first result set
            statement.execute(sql);
            try (ResultSet row = statement.getResultSet()) {
                return row != null && row.next() ? row.getInt(1) : 0;
            }
        }
    }

    static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
