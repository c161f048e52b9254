package io.locked.it.weld.transactional;

import io.locked.api.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Adds to a balance by read-then-write inside the business transaction, under the lock. */
@ApplicationScoped
public class Ledger {

    @Locked("ledger")
    @Transactional
    public void addOne() throws SQLException {
        Connection connection = JdbcTransactionInterceptor.CURRENT.get();
        long balance;
        try (PreparedStatement read = connection.prepareStatement("SELECT balance FROM it_ledger WHERE id = 1");
             ResultSet row = read.executeQuery()) {
            row.next();
            balance = row.getLong(1);
        }
        try (PreparedStatement write = connection.prepareStatement("UPDATE it_ledger SET balance = ? WHERE id = 1")) {
            write.setLong(1, balance + 1);
            write.executeUpdate();
        }
    }
}
