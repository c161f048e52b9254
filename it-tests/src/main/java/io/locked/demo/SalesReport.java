package io.locked.demo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Reads the sales back and checks them: nothing oversold, and tokens increasing in sale order. */
final class SalesReport {
    private final DataSource pool;
    private final int stock;

    SalesReport(DataSource pool, int stock) {
        this.pool = pool;
        this.stock = stock;
    }

    /** @return true when every item is sold exactly out and its tokens increase */
    boolean print(double seconds) throws SQLException {
        boolean ok = true;
        try (Connection connection = pool.getConnection()) {
            System.out.println();
            System.out.println("| item   | lock mode   | stock | sold | left | oversold | tokens increasing | per shop |");
            System.out.println("|--------|-------------|------:|-----:|-----:|---------:|-------------------|----------|");
            ok &= row(connection, StockDemo.WIDGET, "PESSIMISTIC");
            ok &= row(connection, StockDemo.GADGET, "OPTIMISTIC");
        }
        System.out.printf("%n%d sales in %.1f s (including JVM start-up). %s%n", 2 * stock, seconds,
                ok ? "OK: 0 oversold." : "FAILED: see the table.");
        return ok;
    }

    private boolean row(Connection connection, String item, String mode) throws SQLException {
        int sold = StockDemo.count(connection, "SELECT COUNT(*) FROM demo_sale WHERE item = '" + item + "'");
        int left = StockDemo.count(connection, "SELECT remaining FROM demo_stock WHERE item = '" + item + "'");
        boolean increasing = tokensIncrease(connection, item);
        int oversold = Math.max(0, sold - stock);
        System.out.printf("| %-6s | %-11s | %5d | %4d | %4d | %8d | %-17s | %s |%n",
                item, mode, stock, sold, left, oversold, increasing ? "yes" : "NO", perShop(connection, item));
        return oversold == 0 && sold == stock && left == 0 && increasing;
    }

    private static boolean tokensIncrease(Connection connection, String item) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT token FROM demo_sale WHERE item = ? ORDER BY id")) {
            select.setString(1, item);
            try (ResultSet tokens = select.executeQuery()) {
                long previous = Long.MIN_VALUE;
                while (tokens.next()) {
                    if (tokens.getLong(1) <= previous) {
                        return false;
                    }
                    previous = tokens.getLong(1);
                }
                return true;
            }
        }
    }

    private static String perShop(Connection connection, String item) throws SQLException {
        StringBuilder text = new StringBuilder();
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT worker, COUNT(*) FROM demo_sale WHERE item = ? GROUP BY worker ORDER BY worker")) {
            select.setString(1, item);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    text.append(text.length() == 0 ? "" : ", ").append(rows.getString(1)).append(' ').append(rows.getInt(2));
                }
            }
        }
        return text.toString();
    }
}
