package io.locked.it.weld.permits;

import io.locked.api.HolderKind;
import io.locked.api.LockInfo;
import io.locked.api.LockManager;
import io.locked.api.LockNotAcquiredException;
import io.locked.it.weld.LockedDeployment;
import io.locked.it.weld.TestConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code @Locked(type = READ / WRITE)} on a Weld SE bean: two reads run at once, the write is refused
 * while they run and runs once they are done, and config turns the read into a write. {@code PESSIMISTIC}
 * (the default mode) on MariaDB, whose readers share a row lock; on H2, which has none, the deployment
 * fails with the reason, and config's {@code OPTIMISTIC} makes it work.
 */
class ReadWriteInCdiTest {

    @AfterEach
    void clearConfig() {
        TestConfig.clear();
    }

    @Test
    void readersShareAndTheWriterWaitsForThem() throws Exception {
        TestConfig.set("locked-test.database", "MARIADB");
        readersShareThenTheWriteRuns();
    }

    /** Two reads at once; the write is refused while they run and runs once they are done. */
    private static void readersShareThenTheWriteRuns() throws Exception {
        try (WeldContainer container = LockedDeployment.with(Catalog.class).initialize()) {
            Catalog catalog = container.select(Catalog.class).get();
            LockManager locks = container.select(LockManager.class).get();
            CountDownLatch finish = new CountDownLatch(1);
            List<Future<?>> reads = startReads(catalog, 2, finish);
            try {
                // both inside at once (startReads); in one JVM they share a slot, or each formed one (no wait)
                List<LockInfo> slots = locks.holders("catalog");
                assertTrue(!slots.isEmpty() && slots.size() <= 2
                        && slots.stream().allMatch(slot -> slot.key().equals("catalog") && slot.kind() == HolderKind.READER),
                        "the two readers inside hold reader slots: " + slots);
                assertThrows(LockNotAcquiredException.class, catalog::rewrite, "the write while two read");
            } finally {
                finish.countDown();
            }
            for (Future<?> read : reads) {
                read.get(30, TimeUnit.SECONDS);
            }
            catalog.rewrite();
        }
    }

    @Test
    void configMakesTheReadAWrite() throws Exception {
        TestConfig.set("locked-test.database", "MARIADB");
        TestConfig.set("locked.\"" + Catalog.class.getName() + "/read\".type", "write");
        try (WeldContainer container = LockedDeployment.with(Catalog.class).initialize()) {
            Catalog catalog = container.select(Catalog.class).get();
            CountDownLatch finish = new CountDownLatch(1);
            List<Future<?>> first = startReads(catalog, 1, finish);
            try {
                assertThrows(LockNotAcquiredException.class, () -> catalog.read(new CountDownLatch(1), finish),
                        "a second write while the first runs");
            } finally {
                finish.countDown();
            }
            first.get(0).get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void pessimisticReadWriteOnADatabaseWithoutSharedRowLocksFailsTheDeployment() {
        RuntimeException failure = assertThrows(RuntimeException.class, () -> {
            try (WeldContainer ignored = LockedDeployment.with(Catalog.class).initialize()) {
                // booted on H2: a pessimistic read/write lock that has no shared row lock went unnoticed
            }
        });
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        for (String part : List.of("@Locked PESSIMISTIC READ on " + Catalog.class.getName() + "#read(",
                "@Locked PESSIMISTIC WRITE on " + Catalog.class.getName() + "#rewrite()", "H2 has no shared row locks",
                "use mode OPTIMISTIC")) {
            assertTrue(messages.toString().contains(part), "expected <" + part + "> in:\n" + messages);
        }
    }

    @Test
    void configMakesItOptimisticWhereTheDatabaseHasNoSharedRowLocks() throws Exception {
        TestConfig.set("locked.\"" + Catalog.class.getName() + "/read\".mode", "optimistic");
        TestConfig.set("locked.\"" + Catalog.class.getName() + "/rewrite\".mode", "optimistic");
        readersShareThenTheWriteRuns(); // on H2
    }

    /** Starts that many reads and returns once each is inside, or fails. */
    private static List<Future<?>> startReads(Catalog catalog, int calls, CountDownLatch finish)
            throws InterruptedException {
        ExecutorService threads = Executors.newFixedThreadPool(calls);
        CountDownLatch inside = new CountDownLatch(calls);
        List<Future<?>> running = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            running.add(threads.submit(() -> {
                catalog.read(inside, finish);
                return null;
            }));
        }
        threads.shutdown();
        if (!inside.await(30, TimeUnit.SECONDS)) {
            finish.countDown();
            throw new AssertionError(inside.getCount() + " of " + calls + " reads never got inside");
        }
        return running;
    }
}
