package io.locked.internal;

import static io.opentelemetry.api.common.AttributeKey.stringKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.LockType;
import io.locked.testing.InMemoryLockRepository;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The metrics Locked has in Micrometer, through OpenTelemetry too, with both on at once; and a task
 * handed to another thread keeping its caller's trace.
 */
class LockTelemetryMetricsTest {
    private final InMemoryTelemetry telemetry = new InMemoryTelemetry();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        otherThread.shutdownNow();
        telemetry.close();
    }

    @Test
    void bothLibrariesCountTheSameScriptByNameNeverByKey() throws Exception {
        int acquired = 3;
        try (LockManager locks = LockManagerBuilder.on(new InMemoryLockRepository()).meterRegistry(registry)
                .openTelemetry(telemetry.sdk).build()) {
            for (int order = 1; order <= acquired; order++) {
                try (LockHandle lock = locks.acquire(LockRequest.of("order:" + order).name("order"))) {
                    assertEquals(1, InMemoryTelemetry.sum(telemetry.collect().get("locked.held"),
                            Attributes.of(stringKey("locked.name"), "order")));
                }
            }
            try (LockHandle busy = locks.acquire(LockRequest.of("order:1").name("order"))) {
                Optional<LockHandle> refused = otherThread.submit(
                        () -> locks.tryAcquire(LockRequest.of("order:1").name("order"))).get();
                assertTrue(refused.isEmpty());
            }
            locks.acquire(LockRequest.of("pool:1").name("pool").permits(2)).close();
        }

        Map<String, MetricData> metrics = telemetry.collect();
        Attributes order = Attributes.of(stringKey("locked.name"), "order", stringKey("locked.mode"), "pessimistic",
                stringKey("locked.type"), "exclusive");
        assertEquals(acquired + 1, InMemoryTelemetry.sum(metrics.get("locked.acquisitions"), outcome(order, "acquired")));
        assertEquals(1, InMemoryTelemetry.sum(metrics.get("locked.acquisitions"), outcome(order, "busy")));
        assertEquals(acquired + 2, InMemoryTelemetry.count(metrics.get("locked.wait.duration"), order));
        assertEquals(acquired + 1, InMemoryTelemetry.count(metrics.get("locked.hold.duration"), outcome(order, "released")));
        assertEquals(0, InMemoryTelemetry.sum(metrics.get("locked.held"), order));
        assertEquals(1, InMemoryTelemetry.sum(metrics.get("locked.acquisitions"),
                Attributes.of(stringKey("locked.name"), "pool", stringKey("locked.type"), "permit")));
        assertEquals("s", metrics.get("locked.wait.duration").getUnit());
        for (MetricData metric : metrics.values()) {
            assertFalse(metric.getData().getPoints().stream().anyMatch(point ->
                    point.getAttributes().get(stringKey("locked.key")) != null), metric.getName() + " carries a key");
        }
        // Micrometer's meters are unchanged beside them
        assertEquals(acquired + 1, registry.get("locked.acquisitions").tags("name", "order", "outcome", "acquired")
                .counter().count());
        assertEquals(1, registry.get("locked.acquisitions").tags("name", "order", "outcome", "not_acquired")
                .counter().count());
    }

    private static Attributes outcome(Attributes lock, String outcome) {
        return lock.toBuilder().put(stringKey("locked.outcome"), outcome).build();
    }

    @Test
    void aTaskCarriedToAnotherThreadAcquiresUnderItsCallersSpan() throws Exception {
        Span request = telemetry.caller().spanBuilder("GET /report").startSpan();
        try (DefaultLockManager locks = (DefaultLockManager) LockManagerBuilder.on(new InMemoryLockRepository())
                .openTelemetry(telemetry.sdk).build()) {
            Runnable acquireOnce = () -> locks.acquire(LockRequest.of("report:1")).close();
            Future<?> carried;
            Future<?> notCarried;
            try (Scope inRequest = request.makeCurrent()) {
                carried = otherThread.submit(locks.carryContext(acquireOnce));
                carried.get();
                notCarried = otherThread.submit(acquireOnce);
                notCarried.get();
            }
        } finally {
            request.end();
        }
        var waits = telemetry.lockSpans("wait_for lock");
        assertEquals(2, waits.size());
        assertEquals(request.getSpanContext().getSpanId(), waits.get(0).getParentSpanId(), "the carried task's wait");
        assertEquals(request.getSpanContext().getTraceId(), waits.get(0).getTraceId());
        SpanData uncarried = waits.get(1);
        assertFalse(uncarried.getParentSpanContext().isValid(), "without the wrap the other thread has no caller's span");
    }

    @Test
    void readAndWriteLocksAreTypedInTheirSpans() {
        try (LockManager locks = LockManagerBuilder.on(new InMemoryLockRepository()).openTelemetry(telemetry.sdk).build()) {
            locks.acquire(LockRequest.of("catalog").type(LockType.READ).mode(LockMode.OPTIMISTIC)).close();
            locks.acquire(LockRequest.of("catalog").type(LockType.WRITE).mode(LockMode.OPTIMISTIC)).close();
        }
        var waits = telemetry.lockSpans("wait_for lock");
        assertEquals("read", waits.get(0).getAttributes().get(stringKey("locked.type")));
        assertEquals("write", waits.get(waits.size() - 1).getAttributes().get(stringKey("locked.type")));
        waits.forEach(wait -> assertEquals("acquired", wait.getAttributes().get(stringKey("locked.outcome"))));
    }
}
