package io.locked.it.weld.skip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.api.OnTimeout;
import io.locked.api.event.LockNotAcquired;
import io.locked.it.weld.EventLog;
import io.locked.it.weld.LockedDeployment;
import io.locked.it.weld.TestConfig;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * OnTimeout.SKIP: a busy lock means the method does not run and returns "nothing" for its type; a
 * lock store without a connection throws, unless the method asked for SKIP_ANY.
 */
class SkipTest {

    @Test
    void busyLockSkipsTheCall() throws Exception {
        try (WeldContainer container = LockedDeployment.with(Cleaner.class).initialize()) {
            Cleaner cleaner = container.select(Cleaner.class).get();
            LockManager locks = container.select(LockManager.class).get();
            LockHandle held = CompletableFuture.supplyAsync(() -> locks.acquire(LockRequest.of("clean"))).get();

            cleaner.clean();
            assertEquals(Optional.empty(), cleaner.cleanAndReport());
            assertNull(cleaner.cleanLater().toCompletableFuture().get(10, TimeUnit.SECONDS));
            assertEquals(0, cleaner.runs(), "a skipped method ran");
            assertEquals(3, container.select(EventLog.class).get().of(LockNotAcquired.class).stream()
                    .filter(event -> event.outcome() == OnTimeout.SKIP).count());

            CompletableFuture.runAsync(held::close).get();
            assertTrue(cleaner.cleanAndReport().isPresent(), "a free lock must let the call run");
        }
    }

    @AfterEach
    void clearConfig() {
        TestConfig.clear();
    }

    @Test
    void noConnectionIsNoSkipUnlessAskedFor() throws Exception {
        TestConfig.set("locked.connection-wait", "50ms");
        try (WeldContainer container = LockedDeployment.with(Cleaner.class).initialize()) {
            Cleaner cleaner = container.select(Cleaner.class).get();
            HikariDataSource pool = (HikariDataSource) container.select(DataSource.class).get();
            cleaner.clean();
            List<Connection> drained = new ArrayList<>();
            try {
                // the application's own work has every connection: nobody holds the key, nobody can run the job
                while (drained.size() < pool.getMaximumPoolSize()) {
                    drained.add(pool.getConnection());
                }
                LockNotAcquiredException refused = assertThrows(LockNotAcquiredException.class, cleaner::clean);
                assertEquals(LockNotAcquiredException.Reason.NO_CONNECTION, refused.reason());
                assertTrue(refused.getMessage().contains("within PT0.05S"), "the configured connection wait: " + refused.getMessage());
                cleaner.cleanWhateverKeptTheLock();
            } finally {
                for (Connection connection : drained) {
                    connection.close();
                }
            }
            assertEquals(1, cleaner.runs(), "a call ran without its lock");
            List<LockNotAcquired> events = container.select(EventLog.class).get().of(LockNotAcquired.class);
            assertEquals(List.of(OnTimeout.THROW, OnTimeout.SKIP), events.stream().map(LockNotAcquired::outcome).toList());
            assertTrue(events.stream().allMatch(event -> event.reason() == LockNotAcquiredException.Reason.NO_CONNECTION),
                    String.valueOf(events));
        }
    }
}
