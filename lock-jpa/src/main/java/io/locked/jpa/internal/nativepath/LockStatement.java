package io.locked.jpa.internal.nativepath;

import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.RowStatements;
import io.locked.jpa.internal.dialect.SessionLockTimeout;
import io.locked.jpa.internal.transaction.LockTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.UnaryOperator;

/**
 * Sends a pessimistic lock statement ({@link RowStatements#lockRow()}) and reads what it drew from its
 * row: token, whether the key was free, whether the statement created the row, the Galera node, the
 * token clock.
 *
 * <p>The token clock's column is found by its name in the first row and kept: every lock statement of a
 * dialect returns the same columns, and a look-up by name makes the driver build a map of the result's
 * column names for each result (2.7 % of the cycling threads' CPU samples on a hot MariaDB key).
 */
final class LockStatement {
    private final Dialect database;
    private volatile int tokenClockColumn;

    LockStatement(Dialect database) {
        this.database = database;
    }

    /**
     * Runs the lock statement on the connection, in its transaction.
     *
     * @param asSent the lock statement's text as it is sent ({@link LockTransaction#started}, where it may
     *               be the one that starts the transaction); a prepared statement is never the first
     * @return what it drew, or null where it returned no row (MySQL: found no row)
     */
    DrawnToken draw(Connection connection, UnaryOperator<String> asSent, String key, String holder, long waitMillis,
                    boolean galera) throws SQLException {
        if (database.inlinesLockStatements()) {
            try (Statement lock = connection.createStatement()) {
                String sql = asSent.apply(database.lockRowText(holder, key, waitMillis, galera));
                if (database.answersByInsertId()) {
                    if (lock.executeUpdate(sql, Statement.RETURN_GENERATED_KEYS) == 0) {
                        return null;
                    }
                    long drawn = InsertIds.of(lock);
                    // 0, no token drawn: a live lease holds the key
                    return drawn == 0 ? DrawnToken.BUSY : DrawnToken.withoutClock(drawn);
                }
                // execute, not executeQuery: Connector/J refuses an INSERT there, even one that returns rows
                lock.execute(sql);
                try (ResultSet row = lock.getResultSet()) {
                    return drawn(row, galera);
                }
            }
        }
        try (SessionLockTimeout bounded = database.boundLockWait(connection, waitMillis);
             PreparedStatement lock = database.lockRow(connection, holder, key, waitMillis);
             ResultSet row = ReturnedRows.ofLock(lock, database, waitMillis)) {
            return drawn(row, galera);
        }
    }

    /** @return what the statement drew, or null where it returned no row */
    private DrawnToken drawn(ResultSet row, boolean galera) throws SQLException {
        if (!row.next()) {
            return null;
        }
        return new DrawnToken(row.getLong(1), row.getInt(2) == 1, galera ? row.getString(4) : null,
                database.createsRowUnseen() && row.getBoolean(3), row.getLong(tokenClockColumn(row)));
    }

    private int tokenClockColumn(ResultSet row) throws SQLException {
        int column = tokenClockColumn;
        if (column == 0) {
            column = row.findColumn(RowStatements.TOKEN_CLOCK);
            tokenClockColumn = column;
        }
        return column;
    }
}
