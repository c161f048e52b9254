package io.locked.jpa.internal.nativepath;

import io.locked.jpa.internal.dialect.Dialect;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The rows of a lock or take statement: where the dialect sends the statement's settings with it
 * ({@link Dialect#settingsFirst}), or a row lock of its own, they give results of their own before the rows.
 */
final class ReturnedRows {
    private ReturnedRows() {
    }

    /**
     * Runs a take, which returns rows past the result of its settings where they come first.
     */
    static ResultSet ofTake(PreparedStatement statement, Dialect database) throws SQLException {
        return after(statement, database.settingsFirst() ? 1 : 0);
    }

    /**
     * Runs a pessimistic acquisition, which returns rows past the results of its own (its settings, a
     * row lock taken first: {@link Dialect#resultsBeforeLockRows}).
     */
    static ResultSet ofLock(PreparedStatement statement, Dialect database, long waitMillis) throws SQLException {
        return after(statement, database.resultsBeforeLockRows(waitMillis));
    }

    private static ResultSet after(PreparedStatement statement, int resultsBefore) throws SQLException {
        // execute, not executeQuery: Connector/J refuses an INSERT there, even one that returns rows
        statement.execute();
        for (int before = resultsBefore; before > 0; before--) {
            statement.getMoreResults();
        }
        return statement.getResultSet();
    }
}
