package io.locked.quarkus.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockRequest;
import io.locked.api.OnTimeout;
import io.locked.api.event.LockAcquired;
import io.locked.api.event.LockNotAcquired;
import io.locked.api.event.LockReleased;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
 * application's own Hibernate ORM unit (JTA) on its own datasource, nothing wired by hand. The
 * interceptor, its events, config overrides, a caller's container transaction and the readiness check.
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
    @Inject
    Orders orders;
    @TestHTTPResource("/q/health/ready")
    URI readiness;

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

    @Test
    void aLockedCallInsideTheCallersTransactionLeavesItIntactAndCommitsItsOwnWriteFirst() throws Exception {
        String name = "orders-" + UUID.randomUUID();
        String kept = UUID.randomUUID().toString();
        Orders.Seen seen = orders.place(kept, name, false, () -> committedValue(name));
        assertTrue(seen.sameTransactionAfter(), "the caller's transaction is the thread's again");
        assertEquals(Status.STATUS_ACTIVE, seen.statusAfter(), "active, not marked rollback-only");
        assertEquals(1, seen.counted());
        assertEquals(1, seen.committedBeforeCallerEnds(), "the holder's write committed before the caller's transaction ended");
        assertTrue(orders.exists(kept), "the caller's own write committed with the caller");

        String rolledBack = UUID.randomUUID().toString();
        Orders.CallerRolledBack failure = assertThrows(Orders.CallerRolledBack.class,
                () -> orders.place(rolledBack, name, true, () -> committedValue(name)));
        assertEquals(Status.STATUS_ACTIVE, failure.seen.statusAfter());
        assertEquals(2, failure.seen.committedBeforeCallerEnds());
        assertFalse(orders.exists(rolledBack), "the caller's rollback took its own write only");
        assertEquals(3, counter.incrementOptimistic(name), "the next holder sees both holders' committed writes");
    }

    @Test
    void theReadinessCheckIsUpThroughTheHealthEndpoint() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(readiness).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        assertTrue(response.body().contains("\"name\": \"locked\"") || response.body().contains("\"name\":\"locked\""), response.body());
        assertTrue(response.body().contains("answering"), response.body());
    }

    /** The counter as another transaction sees it: what was committed. */
    private long committedValue(String name) {
        try {
            return CompletableFuture.supplyAsync(() -> counter.value(name)).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
