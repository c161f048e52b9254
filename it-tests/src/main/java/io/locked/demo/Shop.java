package io.locked.demo;

import io.locked.api.LockMode;
import io.locked.api.Locked;
import io.locked.api.event.LockAcquired;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * One shop's till. The check-then-decrement is deliberately two statements; only {@code @Locked}
 * keeps two buyers in different JVMs from selling the last unit twice.
 */
@ApplicationScoped
public class Shop {
    // lock events fire on the buyer's thread right after the lock is taken: the sale records its token
    private final ThreadLocal<Long> token = new ThreadLocal<>();
    @Inject
    DataSource database;
    @Inject
    ShopName name;

    void onAcquired(@Observes LockAcquired acquired) {
        token.set(acquired.token());
    }

    /** @return false once widgets are sold out */
    @Locked(value = "stock:" + StockDemo.WIDGET, maxWait = "30s")
    public boolean sellWidget() throws SQLException {
        return sell(StockDemo.WIDGET);
    }

    /** @return false once gadgets are sold out */
    @Locked(value = "stock:" + StockDemo.GADGET, mode = LockMode.OPTIMISTIC, maxWait = "30s")
    public boolean sellGadget() throws SQLException {
        return sell(StockDemo.GADGET);
    }

    private boolean sell(String item) throws SQLException {
        try (Connection connection = database.getConnection()) {
            int remaining;
            try (PreparedStatement select = connection.prepareStatement("SELECT remaining FROM demo_stock WHERE item = ?")) {
                select.setString(1, item);
                try (ResultSet row = select.executeQuery()) {
                    row.next();
                    remaining = row.getInt(1);
                }
            }
            if (remaining <= 0) {
                return false;
            }
            try (PreparedStatement decrement = connection.prepareStatement("UPDATE demo_stock SET remaining = ? WHERE item = ?");
                 PreparedStatement sale = connection.prepareStatement("INSERT INTO demo_sale (item, worker, token) VALUES (?, ?, ?)")) {
                decrement.setInt(1, remaining - 1);
                decrement.setString(2, item);
                decrement.executeUpdate();
                sale.setString(1, item);
                sale.setString(2, name.value());
                sale.setLong(3, token.get());
                sale.executeUpdate();
            }
            return true;
        }
    }
}
