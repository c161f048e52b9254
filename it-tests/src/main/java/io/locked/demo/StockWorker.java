package io.locked.demo;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A shop process: its threads sell items until the stock runs out. The check-then-decrement is
 * deliberately two statements; only the lock keeps two buyers from selling the last unit twice.
 */
final class StockWorker {
    private final String name;
    private final DemoDatabase database;
    private final LockManager locks;

    private StockWorker(String name, DemoDatabase database) {
        this.name = name;
        this.database = database;
        this.locks = LockManagerBuilder.on(database.locks).build();
    }

    static void run(String url, String name, int threads) throws Exception {
        try (DemoDatabase database = new DemoDatabase(url, threads + 2)) {
            StockWorker worker = new StockWorker(name, database);
            List<Thread> buyers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread buyer = new Thread(worker::sellUntilSoldOut, name + "-buyer-" + t);
                buyers.add(buyer);
                buyer.start();
            }
            for (Thread buyer : buyers) {
                buyer.join();
            }
            worker.locks.close();
        }
    }

    private void sellUntilSoldOut() {
        boolean widgetsLeft = true;
        boolean gadgetsLeft = true;
        while (widgetsLeft || gadgetsLeft) {
            if (widgetsLeft) {
                widgetsLeft = sellOne(StockDemo.WIDGET, LockMode.PESSIMISTIC);
            }
            if (gadgetsLeft) {
                gadgetsLeft = sellOne(StockDemo.GADGET, LockMode.OPTIMISTIC);
            }
        }
    }

    /** @return false once the item is sold out */
    private boolean sellOne(String item, LockMode mode) {
        LockRequest request = LockRequest.of("stock:" + item).mode(mode).waitFor(Duration.ofSeconds(30));
        try (LockHandle lock = locks.acquire(request); Connection connection = database.pool.getConnection()) {
            int remaining = remaining(connection, item);
            if (remaining <= 0) {
                return false;
            }
            try (PreparedStatement decrement = connection.prepareStatement(
                    "UPDATE demo_stock SET remaining = ? WHERE item = ?");
                 PreparedStatement sale = connection.prepareStatement(
                         "INSERT INTO demo_sale (item, worker, token) VALUES (?, ?, ?)")) {
                decrement.setInt(1, remaining - 1);
                decrement.setString(2, item);
                decrement.executeUpdate();
                sale.setString(1, item);
                sale.setString(2, name);
                sale.setLong(3, lock.token());
                sale.executeUpdate();
            }
            return true;
        } catch (SQLException e) {
            throw new IllegalStateException("sale of " + item + " failed", e);
        }
    }

    private static int remaining(Connection connection, String item) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT remaining FROM demo_stock WHERE item = ?")) {
            select.setString(1, item);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        }
    }
}
