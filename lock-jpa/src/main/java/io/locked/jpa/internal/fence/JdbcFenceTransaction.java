package io.locked.jpa.internal.fence;

import io.locked.jpa.internal.transaction.FenceTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Fence statements on the caller's own JDBC connection, inside its open transaction. */
public final class JdbcFenceTransaction implements FenceTransaction {
    private final Connection connection;

    public JdbcFenceTransaction(Connection connection) {
        this.connection = connection;
    }

    @Override
    public int update(String sql, Object... parameters) throws SQLException {
        try (PreparedStatement statement = prepare(sql, parameters)) {
            return statement.executeUpdate();
        }
    }

    @Override
    public Long queryLong(String sql, Object... parameters) throws SQLException {
        try (PreparedStatement statement = prepare(sql, parameters)) {
            // execute, not executeQuery: Connector/J refuses an INSERT there, even one that returns rows
            statement.execute();
            try (ResultSet rows = statement.getResultSet()) {
                return rows != null && rows.next() ? rows.getLong(1) : null;
            }
        }
    }

    private PreparedStatement prepare(String sql, Object... parameters) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        try {
            for (int i = 0; i < parameters.length; i++) {
                if (parameters[i] instanceof Long number) {
                    statement.setLong(i + 1, number);
                } else {
                    statement.setString(i + 1, (String) parameters[i]);
                }
            }
            return statement;
        } catch (SQLException | RuntimeException failure) {
            statement.close();
            throw failure;
        }
    }
}
