package io.locked.internal;

import static io.opentelemetry.api.common.AttributeKey.doubleKey;
import static io.opentelemetry.api.common.AttributeKey.longKey;
import static io.opentelemetry.api.common.AttributeKey.stringKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockInterruptedException;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.api.LockStoreUnavailableException;
import io.locked.contract.Await;
import io.locked.contract.DelegatingRepository;
import io.locked.spi.Lease;
import io.locked.spi.NoConnectionException;
import io.locked.spi.PessimisticHold;
import io.locked.testing.InMemoryLockRepository;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The spans a lock leaves in its caller's trace: one for the wait, one for the hold, attributed by outcome. */
class LockSpansTest {
    private final InMemoryTelemetry telemetry = new InMemoryTelemetry();
    private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        otherThread.shutdownNow();
        telemetry.close();
    }

    @Test
    void aWaitAndAHoldAreChildrenOfTheCallersSpanAndAReentryMakesNone() {
        Span request = telemetry.caller().spanBuilder("POST /orders").startSpan();
        long token;
        try (LockManager locks = LockManagerBuilder.on(new InMemoryLockRepository()).openTelemetry(telemetry.sdk).build();
             Scope inRequest = request.makeCurrent();
             LockHandle lock = locks.acquire(LockRequest.of("order:42").name("order:{id}").maxWait(Duration.ofSeconds(3)))) {
            token = lock.token();
            locks.acquire(LockRequest.of("order:42").name("order:{id}")).close();
        } finally {
            request.end();
        }

        List<SpanData> spans = telemetry.lockSpans();
        assertEquals(List.of("wait_for lock", "hold lock"), spans.stream().map(SpanData::getName).toList(),
                "one wait and one hold, nothing for the reentrant entry");
        for (SpanData span : spans) {
            assertEquals(request.getSpanContext().getTraceId(), span.getTraceId());
            assertEquals(request.getSpanContext().getSpanId(), span.getParentSpanId());
            assertEquals("order:42", span.getAttributes().get(stringKey("locked.key")));
            assertEquals("order:{id}", span.getAttributes().get(stringKey("locked.name")));
            assertEquals("pessimistic", span.getAttributes().get(stringKey("locked.mode")));
            assertEquals("exclusive", span.getAttributes().get(stringKey("locked.type")));
            assertEquals(token, span.getAttributes().get(longKey("locked.token")));
            assertEquals(StatusCode.UNSET, span.getStatus().getStatusCode());
            assertNull(span.getAttributes().get(stringKey("error.type")));
        }
        SpanData wait = spans.get(0);
        SpanData hold = spans.get(1);
        assertEquals("acquired", wait.getAttributes().get(stringKey("locked.outcome")));
        assertEquals(3.0, wait.getAttributes().get(doubleKey("locked.wait.timeout")));
        assertEquals("released", hold.getAttributes().get(stringKey("locked.outcome")));
        assertTrue(wait.getEndEpochNanos() <= hold.getStartEpochNanos(), "the hold begins where the wait ends");
    }

    /** An asynchronous acquisition waits on another thread, yet its spans stay in the caller's trace. */
    @Test
    void anAsynchronousAcquisitionIsTracedUnderItsCallersSpan() throws Exception {
        Span request = telemetry.caller().spanBuilder("GET /orders").startSpan();
        try (LockManager locks = LockManagerBuilder.on(new InMemoryLockRepository()).openTelemetry(telemetry.sdk).build()) {
            LockHandle lock;
            try (Scope inRequest = request.makeCurrent()) {
                lock = locks.acquireAsync(LockRequest.of("order:7").name("order")).toCompletableFuture()
                        .get(30, TimeUnit.SECONDS);
            }
            lock.close();
        } finally {
            request.end();
        }
        List<SpanData> spans = telemetry.lockSpans();
        assertEquals(List.of("wait_for lock", "hold lock"), spans.stream().map(SpanData::getName).toList());
        for (SpanData span : spans) {
            assertEquals(request.getSpanContext().getSpanId(), span.getParentSpanId(), span.getName());
        }
    }

    @Test
    void aBusyKeyEndsTheWaitWithoutAHold() throws Exception {
        try (LockManager locks = LockManagerBuilder.on(new InMemoryLockRepository()).openTelemetry(telemetry.sdk).build();
             LockHandle held = locks.acquire(LockRequest.of("order:1").name("order"))) {
            Span request = telemetry.caller().spanBuilder("other request").startSpan();
            Optional<LockHandle> refused = otherThread.submit(() -> {
                try (Scope inRequest = request.makeCurrent()) {
                    return locks.tryAcquire(LockRequest.of("order:1").name("order"));
                } finally {
                    request.end();
                }
            }).get();
            assertTrue(refused.isEmpty());

            SpanData busy = telemetry.lockSpans("wait_for lock").get(1);
            assertEquals(request.getSpanContext().getSpanId(), busy.getParentSpanId());
            assertEquals("busy", busy.getAttributes().get(stringKey("locked.outcome")));
            assertEquals("busy", busy.getAttributes().get(stringKey("error.type")));
            assertNull(busy.getAttributes().get(longKey("locked.token")));
            assertEquals(StatusCode.UNSET, busy.getStatus().getStatusCode(), "a refusal is an answer, not a failure");
            assertEquals(0, telemetry.lockSpans("hold lock").size(), "the lock is still held by the first");
        }
    }

    @Test
    void aLostLeaseEndsTheHoldAsLostWhenTheLossIsKnown() throws Exception {
        DelegatingRepository takenOver = new DelegatingRepository(new InMemoryLockRepository()) {
            @Override
            public Lease renewLease(Lease lease, Duration duration) {
                return null;
            }
        };
        try (LockManager locks = LockManagerBuilder.on(takenOver).openTelemetry(telemetry.sdk).build()) {
            LockHandle report = locks.acquire(LockRequest.of("report:2026-11").name("report")
                    .mode(LockMode.OPTIMISTIC).lease(Duration.ofMillis(300)));
            Await.invalid(report, Duration.ofSeconds(10), "the refused renewal");
            Await.until(() -> telemetry.lockSpans("hold lock").size() == 1, Duration.ofSeconds(10), "the hold span");
            SpanData hold = telemetry.lockSpans("hold lock").get(0);
            assertEquals("lost", hold.getAttributes().get(stringKey("locked.outcome")));
            assertEquals("lost", hold.getAttributes().get(stringKey("error.type")));
            assertEquals(StatusCode.ERROR, hold.getStatus().getStatusCode());
            assertEquals("optimistic", hold.getAttributes().get(stringKey("locked.mode")));
            assertEquals(report.token(), hold.getAttributes().get(longKey("locked.token")));
            assertThrows(LockLostException.class, report::close);
        }
        assertEquals(1, telemetry.lockSpans("hold lock").size(), "the close after the loss ends no second hold");
    }

    @Test
    void aStoreFailureAndNoConnectionEndTheWaitAsErrors() {
        DelegatingRepository failing = new DelegatingRepository(new InMemoryLockRepository()) {
            @Override
            public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
                throw new LockStoreUnavailableException(key, "taking the lease failed", new SQLException("connection refused"));
            }

            @Override
            public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
                throw new NoConnectionException("pool 'test' (2 connections: 2 in use)");
            }
        };
        try (LockManager locks = LockManagerBuilder.on(failing).openTelemetry(telemetry.sdk).build()) {
            assertThrows(LockStoreUnavailableException.class,
                    () -> locks.acquire(LockRequest.of("job:nightly").mode(LockMode.OPTIMISTIC)));
            assertThrows(LockNotAcquiredException.class, () -> locks.acquire(LockRequest.of("job:hourly")));
        }
        List<SpanData> waits = telemetry.lockSpans("wait_for lock");
        assertEquals(2, waits.size());
        assertEquals("store_failed", waits.get(0).getAttributes().get(stringKey("locked.outcome")));
        assertEquals(LockStoreUnavailableException.class.getName(), waits.get(0).getAttributes().get(stringKey("error.type")));
        assertEquals("no_connection", waits.get(1).getAttributes().get(stringKey("locked.outcome")));
        assertEquals("no_connection", waits.get(1).getAttributes().get(stringKey("error.type")));
        waits.forEach(wait -> assertEquals(StatusCode.ERROR, wait.getStatus().getStatusCode()));
        assertEquals(0, telemetry.lockSpans("hold lock").size());
    }

    @Test
    void anInterruptedWaitEndsAsInterrupted() throws Exception {
        try (LockManager locks = LockManagerBuilder.on(new InMemoryLockRepository()).openTelemetry(telemetry.sdk).build();
             LockHandle held = locks.acquire(LockRequest.of("order:3").mode(LockMode.OPTIMISTIC))) {
            // optimistic: the waiter polls and sleeps in Locked itself, where an interrupt is Locked's to report
            Thread waiter = new Thread(() -> assertThrows(LockInterruptedException.class,
                    () -> locks.acquire(LockRequest.of("order:3").mode(LockMode.OPTIMISTIC).maxWait(Duration.ofMinutes(5)))));
            waiter.start();
            Await.until(() -> waiter.getState() == Thread.State.WAITING || waiter.getState() == Thread.State.TIMED_WAITING,
                    Duration.ofSeconds(10), "the waiter waiting for order:3");
            waiter.interrupt();
            waiter.join();
        }
        SpanData interrupted = telemetry.lockSpans("wait_for lock").get(1);
        assertEquals("interrupted", interrupted.getAttributes().get(stringKey("locked.outcome")));
        assertEquals(LockInterruptedException.class.getName(), interrupted.getAttributes().get(stringKey("error.type")));
        assertEquals(300.0, interrupted.getAttributes().get(doubleKey("locked.wait.timeout")));
        assertEquals(StatusCode.ERROR, interrupted.getStatus().getStatusCode());
    }

    @Test
    void withNamesOnlyNoSpanCarriesTheRenderedKey() {
        try (LockManager locks = LockManagerBuilder.on(new InMemoryLockRepository()).openTelemetry(telemetry.sdk, false)
                .build()) {
            locks.acquire(LockRequest.of("customer:alice@example.com").name("customer:{email}")).close();
        }
        assertEquals(2, telemetry.lockSpans().size());
        for (SpanData span : telemetry.lockSpans()) {
            assertFalse(span.getAttributes().asMap().containsKey(stringKey("locked.key")), span.toString());
            assertEquals("customer:{email}", span.getAttributes().get(stringKey("locked.name")));
        }
    }

    @Test
    void withoutOpenTelemetryOnTheBuilderThereIsNoSpan() {
        Span request = telemetry.caller().spanBuilder("request").startSpan();
        try (LockManager locks = LockManagerBuilder.on(new InMemoryLockRepository()).build();
             Scope inRequest = request.makeCurrent()) {
            locks.acquire(LockRequest.of("order:7")).close();
        } finally {
            request.end();
        }
        assertEquals(0, telemetry.lockSpans().size());
        assertEquals(1, telemetry.spans.getFinishedSpanItems().size(), "only the caller's own span");
    }
}
