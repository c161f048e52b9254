package io.locked.it.weld.fence;

import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.Locked;
import io.locked.it.weld.transactional.JdbcTransactionInterceptor;
import io.locked.jpa.LockFence;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Adds one by read-then-write, fenced with the current @Locked lock, in the business transaction. */
@ApplicationScoped
public class FencedCounter {
    static final String TABLE = "it_fenced_counter";
    @Inject
    LockManager locks;

    /**
     * @param beforeWriting what happens before the holder writes (a GC pause, in the test)
     */
    @Locked(value = "fenced:counter", mode = LockMode.OPTIMISTIC, lease = "400ms")
    @Transactional
    public void addOne(Runnable beforeWriting) throws SQLException {
        beforeWriting.run();
        Connection connection = JdbcTransactionInterceptor.current();
        LockFence.check(connection, locks.current().orElseThrow());
        long value;
        try (PreparedStatement read = connection.prepareStatement("SELECT counter_value FROM " + TABLE + " WHERE id = 1");
             ResultSet row = read.executeQuery()) {
            row.next();
            value = row.getLong(1);
        }
        try (PreparedStatement write = connection.prepareStatement("UPDATE " + TABLE + " SET counter_value = ? WHERE id = 1")) {
            write.setLong(1, value + 1);
            write.executeUpdate();
        }
    }
}
