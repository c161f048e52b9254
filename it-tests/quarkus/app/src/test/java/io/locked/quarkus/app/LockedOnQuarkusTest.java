package io.locked.quarkus.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockRequest;
import io.locked.api.OnTimeout;
import io.locked.api.event.LockAcquired;
import io.locked.api.event.LockNotAcquired;
import io.locked.api.event.LockReleased;
import io.locked.eeapp.Counter;
import io.locked.eeapp.LockEventLog;
import io.locked.eeapp.Reports;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The library jars, unchanged, in a Quarkus application the Quarkus way: the lock table in the
 * application's own Hibernate ORM unit (JTA) on its own datasource, nothing wired by hand: the
 * interceptor and its events in process. Over HTTP, on two packaged instances: {@link QuarkusInstancesIT}.
 */
@QuarkusTest
class LockedOnQuarkusTest {
    @Inject
    Counter counter;
    @Inject
    Reports reports;
    @Inject
    LockManager locks;
    @Inject
    LockEventLog log;

    @Test
    void lockedMethodIsExclusiveInBothModes() throws Exception {
        String pessimistic = "visits-" + UUID.randomUUID();
        String optimistic = "visits-" + UUID.randomUUID();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        List<Future<?>> calls = new ArrayList<>();
        for (int i = 0; i < 80; i++) {
            calls.add(threads.submit(() -> counter.incrementPessimistic(pessimistic)));
            calls.add(threads.submit(() -> counter.incrementOptimistic(optimistic)));
        }
        for (Future<?> call : calls) {
            call.get(60, TimeUnit.SECONDS);
        }
        threads.shutdown();
        assertEquals(80, counter.value(pessimistic), "the non-atomic counter lost increments");
        assertEquals(80, counter.value(optimistic), "the non-atomic counter lost increments");
        assertEquals(80, log.of(LockAcquired.class).stream().filter(e -> e.key().equals("counter:" + pessimistic)).count());
        assertEquals(80, log.of(LockReleased.class).stream().filter(e -> e.key().equals("counter:" + optimistic)).count());
    }

    @Test
    void configOverridesTheAnnotation() throws Exception {
        LockHandle held = CompletableFuture.supplyAsync(() -> locks.acquire(LockRequest.of("report:daily"))).get();
        try {
            reports.daily();
        } finally {
            CompletableFuture.runAsync(held::close).get();
        }
        assertEquals(0, reports.runs(), "the call should have been skipped");
        LockNotAcquired refused = log.of(LockNotAcquired.class).stream()
                .filter(e -> e.key().equals("report:daily")).findFirst().orElseThrow();
        assertEquals(Duration.ZERO, refused.maxWait(), "wait from application.properties");
        assertEquals(OnTimeout.SKIP, refused.outcome(), "on-timeout from application.properties");
        reports.daily();
        assertEquals(1, reports.runs(), "with the key free the call runs");
    }
}
