package io.locked.jpa.internal.nativepath;

import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.RowStatements;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Reads what a pessimistic lock statement drew from its row ({@link RowStatements#lockRow()}): token,
 * whether the key was free, whether the statement created the row, the Galera node, the token clock.
 *
 * <p>The token clock's column is found by its name in the first row and kept: every lock statement of a
 * dialect returns the same columns, and a look-up by name makes the driver build a map of the result's
 * column names for each result (2.7 % of the cycling threads' CPU samples on a hot MariaDB key).
 */
final class LockStatementRows {
    private final Dialect database;
    private volatile int tokenClockColumn;

    LockStatementRows(Dialect database) {
        this.database = database;
    }

    /** @return what the statement drew, or null where it returned no row */
    DrawnToken drawn(ResultSet row, boolean galera) throws SQLException {
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
