package io.locked.it.process;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The counter the multi-process tests protect with a lock: one row per key, incremented by a read
 * then a write on separate statements, deliberately not atomic, so that only the lock keeps
 * increments from being lost. {@code fence_token} is the highest fencing token that wrote, for
 * {@link CounterFence#TOKEN}.
 */
public final class Counter {
    static final String TABLE = "locked_it_counter";

    private Counter() {
    }

    /**
     * Creates the table if missing and a row at 0 for the key.
     *
     * @param connection autocommit connection
     * @param key        the lock key the counter belongs to
     */
    public static void create(Connection connection, String key) throws SQLException {
        try (Statement ddl = connection.createStatement()) {
            ddl.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (id VARCHAR(255) PRIMARY KEY, counter_value BIGINT NOT NULL,"
                    + " fence_token BIGINT DEFAULT 0 NOT NULL)");
            // tables created before the fence existed get the column too (MySQL has no ADD COLUMN IF NOT EXISTS)
            if (!hasFenceColumn(connection)) {
                ddl.execute("ALTER TABLE " + TABLE + " ADD COLUMN fence_token BIGINT DEFAULT 0 NOT NULL");
            }
        }
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO " + TABLE + " (id, counter_value, fence_token) VALUES (?, 0, 0)")) {
            insert.setString(1, key);
            insert.executeUpdate();
        }
    }

    private static boolean hasFenceColumn(Connection connection) throws SQLException {
        try (Statement probe = connection.createStatement();
             ResultSet none = probe.executeQuery("SELECT fence_token FROM " + TABLE + " WHERE 1 = 0")) {
            return true;
        } catch (SQLException missing) {
            if (!connection.getAutoCommit()) {
                connection.rollback();
            }
            return false;
        }
    }

    /**
     * @param connection any connection
     * @param key        the lock key
     * @return the counter's value, 0 if it has no row
     */
    public static long read(Connection connection, String key) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT counter_value FROM " + TABLE + " WHERE id = ?")) {
            select.setString(1, key);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getLong(1) : 0;
            }
        }
    }

    /**
     * Reads the counter and locks its row until the transaction ends, so that no other write lands
     * between this read and the transaction's own write.
     *
     * @param connection a connection in a transaction
     * @return the counter's value
     */
    static long readForUpdate(Connection connection, String key) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT counter_value FROM " + TABLE + " WHERE id = ? FOR UPDATE")) {
            select.setString(1, key);
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    throw new IllegalStateException("counter row " + key + " is missing");
                }
                return row.getLong(1);
            }
        }
    }

    /**
     * Sets the counter, unconditionally.
     *
     * @param connection any connection
     * @param key        the lock key
     * @param value      the new value
     */
    static void write(Connection connection, String key, long value) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE " + TABLE + " SET counter_value = ? WHERE id = ?")) {
            update.setLong(1, value);
            update.setString(2, key);
            if (update.executeUpdate() != 1) {
                throw new IllegalStateException("counter row " + key + " is missing");
            }
        }
    }

    /**
     * Sets the counter only if no higher token has written it: the fencing check done by the
     * resource itself, with the token the lock handed out.
     *
     * @return false if a higher token had written, and nothing was changed
     */
    static boolean writeFenced(Connection connection, String key, long value, long token) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE " + TABLE
                + " SET counter_value = ?, fence_token = ? WHERE id = ? AND fence_token <= ?")) {
            update.setLong(1, value);
            update.setLong(2, token);
            update.setString(3, key);
            update.setLong(4, token);
            return update.executeUpdate() == 1;
        }
    }
}
