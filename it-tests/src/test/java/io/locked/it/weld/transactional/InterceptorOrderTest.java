package io.locked.it.weld.transactional;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.locked.it.weld.LockedDeployment;
import io.locked.it.weld.TestConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code @Locked} wraps {@code @Transactional}: the business transaction commits before the lock is
 * released, so the next holder sees the previous holder's write. Moving the lock inside the
 * transaction with {@code locked.interceptor-priority} flips the order, which this test also sees.
 */
class InterceptorOrderTest {

    @AfterEach
    void clearConfig() {
        TestConfig.clear();
    }

    @Test
    void transactionCommitsBeforeTheLockIsReleased() throws Exception {
        try (WeldContainer container = deployment().initialize()) {
            resetLedger(container);
            Ledger ledger = container.select(Ledger.class).get();
            ledger.addOne();
            assertEquals(List.of("lock-acquired", "tx-begin", "tx-commit", "lock-released"),
                    container.select(Trace.class).get().takeSteps());

            ExecutorService threads = Executors.newFixedThreadPool(8);
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < 160; i++) {
                calls.add(threads.submit(() -> {
                    ledger.addOne();
                    return null;
                }));
            }
            for (Future<?> call : calls) {
                call.get(60, TimeUnit.SECONDS);
            }
            threads.shutdown();
            assertEquals(161, balance(container), "a holder did not see the previous holder's committed write");
        }
    }

    @Test
    void configuredPriorityMovesTheLockInsideTheTransaction() throws Exception {
        TestConfig.set("locked.interceptor-priority", "300");
        try (WeldContainer container = deployment().initialize()) {
            resetLedger(container);
            container.select(Ledger.class).get().addOne();
            assertEquals(List.of("tx-begin", "lock-acquired", "lock-released", "tx-commit"),
                    container.select(Trace.class).get().takeSteps());
        }
    }

    private static org.jboss.weld.environment.se.Weld deployment() {
        return LockedDeployment.with(Ledger.class, Trace.class, JdbcTransactionInterceptor.class);
    }

    private static void resetLedger(WeldContainer container) throws Exception {
        try (Connection connection = container.select(DataSource.class).get().getConnection();
             Statement ddl = connection.createStatement()) {
            ddl.execute("CREATE TABLE IF NOT EXISTS it_ledger (id INT PRIMARY KEY, balance BIGINT NOT NULL)");
            ddl.execute("DELETE FROM it_ledger");
            ddl.execute("INSERT INTO it_ledger VALUES (1, 0)");
        }
    }

    private static long balance(WeldContainer container) throws Exception {
        try (Connection connection = container.select(DataSource.class).get().getConnection();
             Statement select = connection.createStatement();
             ResultSet row = select.executeQuery("SELECT balance FROM it_ledger WHERE id = 1")) {
            row.next();
            return row.getLong(1);
        }
    }
}
