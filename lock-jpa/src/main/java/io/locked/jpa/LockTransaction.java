package io.locked.jpa;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The lock's own transaction on a pooled connection, never the caller's; {@link #close()} gives the
 * connection back as it came: no transaction left open, the pool's autocommit setting restored.
 *
 * <p>On MariaDB an autocommit connection gets an explicit {@code START TRANSACTION} and
 * {@code COMMIT} instead of {@code setAutoCommit(false)} and back: the driver sends each autocommit
 * change as a statement of its own, so this saves a round trip per lock (see the README's
 * Performance section). Elsewhere the driver starts the transaction with the first statement.
 */
final class LockTransaction implements AutoCloseable {
    private final LockConnections connections;
    private final Connection connection;
    private final boolean pooledAutoCommit;
    private final boolean bySql;
    private boolean open;

    /** Work on a connection, which may fail with a SQLException. */
    @FunctionalInterface
    interface Work<T> {
        T on(Connection connection) throws SQLException;
    }

    private LockTransaction(LockConnections connections, Connection connection, boolean pooledAutoCommit,
                            boolean bySql) {
        this.connections = connections;
        this.connection = connection;
        this.pooledAutoCommit = pooledAutoCommit;
        this.bySql = bySql;
    }

    /** Takes a connection from the pool and starts a transaction on it. */
    static LockTransaction begin(LockConnections connections, LockDatabase database) throws SQLException {
        Connection connection = connections.open();
        LockTransaction transaction;
        try {
            boolean pooledAutoCommit = connection.getAutoCommit();
            transaction = new LockTransaction(connections, connection, pooledAutoCommit,
                    pooledAutoCommit && database == LockDatabase.MARIADB);
        } catch (SQLException | RuntimeException failure) {
            connections.close(connection);
            throw failure;
        }
        try {
            transaction.beginAgain();
            return transaction;
        } catch (SQLException | RuntimeException failure) {
            transaction.close();
            throw failure;
        }
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
            restoreAndClose(connections, connection, pooledAutoCommit);
        }
    }

    Connection connection() {
        return connection;
    }

    /** Starts the next transaction on the same connection, after a {@link #commit()} or {@link #rollback()}. */
    void beginAgain() throws SQLException {
        if (bySql) {
            execute("START TRANSACTION");
        } else if (connection.getAutoCommit()) {
            connection.setAutoCommit(false);
        }
        open = true;
    }

    /** Commits; a transaction whose commit failed stays open, so {@link #close()} still ends it. */
    void commit() throws SQLException {
        end(true);
    }

    void rollback() throws SQLException {
        end(false);
    }

    private void end(boolean commit) throws SQLException {
        if (bySql) {
            execute(commit ? "COMMIT" : "ROLLBACK");
        } else if (commit) {
            connection.commit();
        } else {
            connection.rollback();
        }
        open = false;
    }

    private void execute(String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /**
     * Rolls back what was not committed and returns the connection. A connection that cannot be
     * rolled back is aborted rather than pooled: it may still hold a row lock.
     */
    @Override
    public void close() {
        if (open) {
            try {
                rollback();
            } catch (SQLException | RuntimeException broken) {
                abort();
                return;
            }
        }
        restoreAndClose(connections, connection, pooledAutoCommit);
    }

    private void abort() {
        try {
            connection.abort(Runnable::run);
        } catch (SQLException | RuntimeException ignored) {
            // already gone
        }
        try {
            connections.close(connection);
        } catch (SQLException | RuntimeException ignored) {
            // the pool drops a connection it finds closed
        }
    }

    private static void restoreAndClose(LockConnections connections, Connection connection, boolean pooledAutoCommit) {
        try {
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
