package io.locked.jpa.fencing;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The stock table of the fenced-write tests, read and written with plain JDBC. Reads and writes
 * take the caller's connection (its transaction); {@link #quantity} reads past every transaction.
 */
public final class StockTable {
    /** The table's name. */
    public static final String NAME = "fence_test_stock";
    private final HikariDataSource pool;

    /** @param pool the business pool; the table is created on it if missing */
    public StockTable(HikariDataSource pool) throws SQLException {
        this.pool = pool;
        try (Connection connection = pool.getConnection(); Statement create = connection.createStatement()) {
            create.execute("CREATE TABLE IF NOT EXISTS " + NAME
                    + " (item VARCHAR(100) NOT NULL PRIMARY KEY, quantity INT NOT NULL)");
        }
    }

    /** Adds an item with its stock, committed. */
    public void add(String item, int quantity) throws SQLException {
        try (Connection connection = pool.getConnection();
             PreparedStatement insert = connection.prepareStatement("INSERT INTO " + NAME + " (item, quantity) VALUES (?, ?)")) {
            insert.setString(1, item);
            insert.setInt(2, quantity);
            insert.executeUpdate();
        }
    }

    /** @return the committed stock of the item */
    public int quantity(String item) throws SQLException {
        try (Connection connection = pool.getConnection()) {
            return read(connection, item);
        }
    }

    /** @return the item's stock as the connection's transaction sees it */
    public static int read(Connection connection, String item) throws SQLException {
        try (PreparedStatement read = connection.prepareStatement("SELECT quantity FROM " + NAME + " WHERE item = ?")) {
            read.setString(1, item);
            try (ResultSet row = read.executeQuery()) {
                if (!row.next()) {
                    throw new IllegalStateException("no stock row for " + item);
                }
                return row.getInt(1);
            }
        }
    }

    /** Sets the item's stock in the connection's transaction. */
    public static void write(Connection connection, String item, int quantity) throws SQLException {
        try (PreparedStatement write = connection.prepareStatement("UPDATE " + NAME + " SET quantity = ? WHERE item = ?")) {
            write.setInt(1, quantity);
            write.setString(2, item);
            if (write.executeUpdate() != 1) {
                throw new IllegalStateException("no stock row for " + item);
            }
        }
    }
}
