package io.locked.jpa.internal.transaction;

import java.sql.SQLException;

/**
 * The caller's business transaction as the fence sees it: statements that run inside it, with
 * positional parameters (strings and longs only).
 */
public interface FenceTransaction {

    /** @return the statement's update count */
    int update(String sql, Object... parameters) throws SQLException;

    /**
     * Runs a statement that returns rows (a query, or a write with {@code RETURNING}).
     *
     * @return the first column of the first row, or null when there is no row
     */
    Long queryLong(String sql, Object... parameters) throws SQLException;
}
