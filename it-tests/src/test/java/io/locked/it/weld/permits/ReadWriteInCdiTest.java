package io.locked.it.weld.permits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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

/**
 * {@code @Locked(type = READ / WRITE)} on a Weld SE bean: two reads run at once, the write is refused
 * while they run and runs once they are done, and config turns the read into a write.
 */
class ReadWriteInCdiTest {

    @AfterEach
    void clearConfig() {
        TestConfig.clear();
    }

    @Test
    void readersShareAndTheWriterWaitsForThem() throws Exception {
        try (WeldContainer container = LockedDeployment.with(Catalog.class).initialize()) {
            Catalog catalog = container.select(Catalog.class).get();
            LockManager locks = container.select(LockManager.class).get();
            CountDownLatch finish = new CountDownLatch(1);
            List<Future<?>> reads = startReads(catalog, 2, finish);
            try {
                assertEquals(2, locks.holders("catalog").size(), "two readers at once");
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
