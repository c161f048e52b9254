package io.locked.jpa.internal.nativepath;

import io.locked.jpa.internal.dialect.Dialect;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The rows of a lock or take statement: where the dialect sends the statement's settings with it
 * ({@link Dialect#settingsFirst}), they give a result of their own before the rows.
 */
final class ReturnedRows {
    private ReturnedRows() {
    }

    /** Runs a statement that returns rows, past the result of its settings where they come first. */
    static ResultSet of(PreparedStatement statement, Dialect database) throws SQLException {
        // execute, not executeQuery: Connector/J refuses an INSERT there, even one that returns rows
        statement.execute();
        if (database.settingsFirst()) {
            statement.getMoreResults();
        }
        return statement.getResultSet();
    }
}
