package io.locked.jpa.internal.transaction;

import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.connection.NetworkTimeouts;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.UnaryOperator;

/**
 * The lock's own transaction on a pooled connection, never the caller's; {@link #close()} gives the
 * connection back as it came: no transaction left open, the pool's autocommit setting restored.
 *
 * <p>On MariaDB and MySQL an autocommit connection gets an explicit {@code START TRANSACTION} and
 * {@code COMMIT} instead of {@code setAutoCommit(false)} and back: the driver sends each autocommit
 * change as a statement of its own, so this saves a round trip per lock (see docs/performance.md,
 * "Statements per cycle"). Where the database can send a statement so that it starts the transaction first
 * (MariaDB), {@code START TRANSACTION} goes with the first statement, in its round trip ({@link #started}).
 * Elsewhere the driver starts the transaction with the first statement.
 *
 * <p>The connection is borrowed within the call's wait, and its statements run under the call's
 * network timeout ({@link CallBounds}); the pool's timeout is put back at close.
 */
public final class LockTransaction implements AutoCloseable {
    private final LockConnections connections;
    private final Connection connection;
    private final boolean pooledAutoCommit;
    private final boolean bySql;
    private final int pooledNetworkTimeout;
    private int networkTimeout;
    private boolean open;
    /** How the first statement is sent so that it starts the transaction; null once it is started. */
    private UnaryOperator<String> startWith;

    /** Work on a connection, which may fail with a SQLException. */
    @FunctionalInterface
    public interface Work<T> {
        T on(Connection connection) throws SQLException;
    }

    private LockTransaction(LockConnections connections, Connection connection, boolean pooledAutoCommit,
                            boolean bySql, int pooledNetworkTimeout, int networkTimeout) {
        this.connections = connections;
        this.connection = connection;
        this.pooledAutoCommit = pooledAutoCommit;
        this.bySql = bySql;
        this.pooledNetworkTimeout = pooledNetworkTimeout;
        this.networkTimeout = networkTimeout;
    }

    /**
     * Takes a connection from the pool within the call's wait and starts a transaction on it.
     *
     * @param startsBySql start it with {@code START TRANSACTION} where the pool's connections are in
     *                    autocommit (the dialect's {@code startsTransactionsBySql})
     *
     * @throws io.locked.jpa.internal.connection.NoFreeConnection if the pool had none free within the wait
     */
    public static LockTransaction begin(LockConnections connections, boolean startsBySql, CallBounds bounds)
            throws SQLException {
        return begin(connections, startsBySql, null, bounds);
    }

    /**
     * As {@link #begin(LockConnections, boolean, CallBounds)}; where it would send {@code START TRANSACTION}
     * and the database has a form that starts the transaction with a statement ({@code startWith}), it sends
     * nothing: the first statement, sent as {@link #started} says, starts it.
     *
     * @param startWith the database's form of a statement that starts the transaction first, or null for none
     */
    public static LockTransaction begin(LockConnections connections, boolean startsBySql, UnaryOperator<String> startWith,
                                        CallBounds bounds) throws SQLException {
        Connection connection = connections.open(bounds.borrowNanos());
        LockTransaction transaction;
        try {
            boolean pooledAutoCommit = connection.getAutoCommit();
            int pooledNetworkTimeout = NetworkTimeouts.apply(connection, bounds.statementMillis());
            transaction = new LockTransaction(connections, connection, pooledAutoCommit,
                    pooledAutoCommit && startsBySql, pooledNetworkTimeout, bounds.statementMillis());
        } catch (SQLException failure) {
            if (LockConflicts.isSessionGone(failure)) {
                abort(connections, connection);
            } else {
                try {
                    connections.close(connection);
                } catch (SQLException | RuntimeException notGivenBack) {
                    failure.addSuppressed(notGivenBack);
                }
            }
            throw failure;
        } catch (RuntimeException failure) {
            connections.close(connection);
            throw failure;
        }
        try {
            if (transaction.bySql && startWith != null) {
                transaction.startWith = startWith;
                transaction.open = true; // a rollback at close ends whatever the first statement started
            } else {
                transaction.beginAgain();
            }
            return transaction;
        } catch (SQLException failure) {
            if (LockConflicts.isSessionGone(failure)) {
                transaction.abort();
            } else {
                transaction.close();
            }
            throw failure;
        } catch (RuntimeException failure) {
            transaction.close();
            throw failure;
        }
    }

    /**
     * Runs work with autocommit on: each statement is its own transaction.
     *
     * @throws io.locked.jpa.internal.connection.NoFreeConnection if the pool had no connection free within the call's wait
     */
    public static <T> T autocommit(LockConnections connections, CallBounds bounds, Work<T> work) throws SQLException {
        Connection connection = connections.open(bounds.borrowNanos());
        boolean pooledAutoCommit = true;
        int pooledNetworkTimeout = NetworkTimeouts.NOT_SET;
        try {
            pooledAutoCommit = connection.getAutoCommit();
            pooledNetworkTimeout = NetworkTimeouts.apply(connection, bounds.statementMillis());
            if (!pooledAutoCommit) {
                connection.setAutoCommit(true);
            }
            return work.on(connection);
        } catch (SQLException failure) {
            if (LockConflicts.isSessionGone(failure)) {
                // not every pool takes every driver's answer for a broken connection (Hikari and H2's)
                abort(connections, connection);
                connection = null;
            }
            throw failure;
        } finally {
            if (connection != null) {
                restoreAndClose(connections, connection, pooledAutoCommit, pooledNetworkTimeout, bounds.statementMillis());
            }
        }
    }

    public Connection connection() {
        return connection;
    }

    /** The network timeout of the statements from now on, as for a hold's commit after its lock wait. */
    public void boundStatements(CallBounds bounds) throws SQLException {
        NetworkTimeouts.change(connection, pooledNetworkTimeout, bounds.statementMillis());
        networkTimeout = bounds.statementMillis();
    }

    /**
     * @param statement a statement to send on the transaction's connection as text
     * @return the statement as it must be sent: where it is the transaction's first and nothing started the
     *         transaction yet, in the form that starts it first (after this, the statement is returned as it is)
     */
    public String started(String statement) {
        UnaryOperator<String> form = startWith;
        startWith = null;
        return form == null ? statement : form.apply(statement);
    }

    /** Starts the next transaction on the same connection, after a {@link #commit()} or {@link #rollback()}. */
    public void beginAgain() throws SQLException {
        startWith = null;
        if (bySql) {
            execute("START TRANSACTION");
        } else if (connection.getAutoCommit()) {
            connection.setAutoCommit(false);
        }
        open = true;
    }

    /** Commits; a transaction whose commit failed stays open, so {@link #close()} still ends it. */
    public void commit() throws SQLException {
        end(true);
    }

    public void rollback() throws SQLException {
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
        if (startWith != null) {
            open = false; // its start was left to a first statement never sent: no transaction to end
        }
        if (open) {
            try {
                rollback();
            } catch (SQLException | RuntimeException broken) {
                abort();
                return;
            }
        }
        restoreAndClose(connections, connection, pooledAutoCommit, pooledNetworkTimeout, networkTimeout);
    }

    /**
     * Aborts the driver's connection under the pool's handle, then hands the handle back: the pool
     * finds it dead and drops it. Aborting the handle itself would not do on every pool: Agroal's
     * (Quarkus') only marks its handle closed, and never takes the connection back, which leaks a
     * pool slot for good.
     */
    private void abort() {
        abort(connections, connection);
    }

    private static void abort(LockConnections connections, Connection connection) {
        try {
            Connection driverConnection = connection.unwrap(Connection.class);
            driverConnection.abort(Runnable::run);
        } catch (SQLException | RuntimeException ignored) {
            // already gone
        }
        try {
            connections.discard(connection);
        } catch (SQLException | RuntimeException ignored) {
            // the pool drops a connection it finds closed
        }
    }

    private static void restoreAndClose(LockConnections connections, Connection connection, boolean pooledAutoCommit,
                                        int pooledNetworkTimeout, int networkTimeout) {
        try {
            if (connection.getAutoCommit() != pooledAutoCommit) {
                connection.setAutoCommit(pooledAutoCommit);
            }
            NetworkTimeouts.restore(connection, pooledNetworkTimeout, networkTimeout);
        } catch (SQLException | RuntimeException ignored) {
            // the connection is gone; closing it below lets the pool drop it
        }
        try {
            connections.close(connection);
        } catch (SQLException | RuntimeException ignored) {
            // nothing more to give back
        }
    }

    /**
     * Runs a read at an isolation level, and puts the connection's level back before it returns to
     * the pool: a holder's uncommitted change is its only trace on MariaDB, MySQL and H2. A connection
     * the pool closed because the read failed (HikariCP closes one on a timeout) does not return to
     * the pool: the read's own failure is told, not the closed connection's.
     */
    public static <T> T readAt(Connection connection, int level, Work<T> read) throws SQLException {
        int before = connection.getTransactionIsolation();
        connection.setTransactionIsolation(level);
        try {
            return read.on(connection);
        } finally {
            if (!connection.isClosed()) {
                connection.setTransactionIsolation(before);
            }
        }
    }
}
