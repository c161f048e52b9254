package io.locked.it.weld.fence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockLostException;
import io.locked.contract.PausableRepository;
import io.locked.it.weld.LockedDeployment;
import io.locked.it.weld.lost.CutOffStore;
import io.locked.it.weld.transactional.JdbcTransactionInterceptor;
import io.locked.it.weld.transactional.Trace;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

/**
 * A fenced write from inside a {@code @Locked} method, through {@code LockManager.current()}: a holder
 * paused past its lease is taken over, the next holder's write commits, and the paused holder's late
 * write is refused, so its transaction rolls back and no update is lost.
 */
class FencedWriteTest {

    @Test
    void aPausedHoldersLateWriteIsRefusedInsideItsLockedMethod() throws Exception {
        try (WeldContainer container = LockedDeployment.with(FencedCounter.class, CutOffStore.class,
                JdbcTransactionInterceptor.class, Trace.class).initialize()) {
            resetCounter(container);
            FencedCounter counter = container.select(FencedCounter.class).get();
            PausableRepository store = container.select(PausableRepository.class).get();

            counter.addOne(() -> { });
            assertEquals(1, counter(container));

            LockLostException refused = assertThrows(LockLostException.class, () -> counter.addOne(() -> {
                // paused past the lease: renewals stop, another caller takes over and writes
                store.cutRenewals();
                try {
                    CompletableFuture.runAsync(() -> {
                        try {
                            counter.addOne(() -> { });
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }).get(60, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
            assertEquals("fenced:counter", refused.key());
            assertEquals(2, counter(container), "the late write was committed, or the successor's was lost");
        }
    }

    private static void resetCounter(WeldContainer container) throws Exception {
        try (Connection connection = container.select(DataSource.class).get().getConnection();
             Statement ddl = connection.createStatement()) {
            ddl.execute("CREATE TABLE IF NOT EXISTS " + FencedCounter.TABLE + " (id INT PRIMARY KEY, counter_value BIGINT NOT NULL)");
            ddl.execute("DELETE FROM " + FencedCounter.TABLE);
            ddl.execute("INSERT INTO " + FencedCounter.TABLE + " (id, counter_value) VALUES (1, 0)");
        }
    }

    private static long counter(WeldContainer container) throws Exception {
        try (Connection connection = container.select(DataSource.class).get().getConnection();
             Statement read = connection.createStatement();
             ResultSet row = read.executeQuery("SELECT counter_value FROM " + FencedCounter.TABLE + " WHERE id = 1")) {
            assertTrue(row.next());
            return row.getLong(1);
        }
    }
}
