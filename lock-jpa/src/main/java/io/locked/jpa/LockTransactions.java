package io.locked.jpa;

import java.sql.Connection;
import java.sql.SQLException;

/** Connections in the lock's own transactions, never the caller's, always handed back as they came. */
final class LockTransactions {
    private LockTransactions() {
    }

    /** Work on a connection, which may fail with a SQLException. */
    @FunctionalInterface
    interface Work<T> {
        T on(Connection connection) throws SQLException;
    }

    /** Runs work with autocommit on: each statement is its own transaction. */
    static <T> T autocommit(LockConnections connections, Work<T> work) throws SQLException {
        Connection connection = connections.open();
        boolean pooledAutoCommit = true;
        try {
            pooledAutoCommit = connection.getAutoCommit();
            if (!pooledAutoCommit) {
                connection.setAutoCommit(true);
            }
            return work.on(connection);
        } finally {
            end(connections, connection, pooledAutoCommit);
        }
    }

    /**
     * Starts a transaction on the connection; {@link #end} gives it back.
     *
     * @return the pool's autocommit setting, for {@link #end}
     */
    static boolean begin(Connection connection) throws SQLException {
        boolean pooledAutoCommit = connection.getAutoCommit();
        if (pooledAutoCommit) {
            connection.setAutoCommit(false);
        }
        return pooledAutoCommit;
    }

    /**
     * Rolls back what was not committed, restores the pool's autocommit setting and returns the
     * connection. Failures are ignored: a broken connection is the pool's to discard.
     */
    static void end(LockConnections connections, Connection connection, boolean pooledAutoCommit) {
        try {
            if (!connection.getAutoCommit()) {
                connection.rollback();
            }
            if (connection.getAutoCommit() != pooledAutoCommit) {
                connection.setAutoCommit(pooledAutoCommit);
            }
        } catch (SQLException | RuntimeException ignored) {
            // the connection is gone; closing it below lets the pool drop it
        }
        try {
            connections.close(connection);
        } catch (SQLException | RuntimeException ignored) {
            // nothing more to give back
        }
    }
}
