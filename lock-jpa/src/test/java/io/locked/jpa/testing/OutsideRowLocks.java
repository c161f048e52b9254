package io.locked.jpa.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * A key's row locked from outside the store under test, in a transaction of a connection the test
 * owns: what a pessimistic holder of another JVM, an acquirer that found a lease live, a forced
 * release or the application's own work holds while the store's statement meets it. The transaction
 * ends with the connection's rollback or close.
 */
public final class OutsideRowLocks {
    private OutsideRowLocks() {
    }

    /**
     * Begins a transaction on the connection (autocommit off) and locks the key's row in it, waiting
     * for the row as any statement of the connection would.
     *
     * @return whether the key has a row: a key without one is not locked
     */
    public static boolean lock(Connection connection, String key) throws SQLException {
        connection.setAutoCommit(false);
        try (PreparedStatement lock = connection.prepareStatement("SELECT lock_key FROM locked_lock WHERE lock_key = ? FOR UPDATE")) {
            lock.setString(1, key);
            try (ResultSet row = lock.executeQuery()) {
                return row.next();
            }
        }
    }

    /**
     * @return a new connection to the database whose open transaction holds the key's row; its close
     *         ends the transaction
     * @throws IllegalStateException if the key has no row
     */
    public static Connection heldElsewhere(TestDatabase database, String key) throws SQLException {
        Connection connection = database.connect();
        try {
            if (!lock(connection, key)) {
                throw new IllegalStateException("'" + key + "' has no row to lock");
            }
            return connection;
        } catch (SQLException | RuntimeException failed) {
            connection.close();
            throw failed;
        }
    }
}
