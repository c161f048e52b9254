package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
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
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What a Micrometer registry sees of the programmatic API: exact counts per outcome, tagged by name, never by key. */
class LockMetricsTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ExecutorService otherThread = Executors.newSingleThreadExecutor();

    // the store takes every lease but never renews one of a "report:" key: as if another holder took it over
    private final DelegatingRepository reportsTakenOver = new DelegatingRepository(new InMemoryLockRepository()) {
        @Override
        public Lease renewLease(Lease lease, Duration duration) {
            return lease.key().startsWith("report:") ? null : super.renewLease(lease, duration);
        }
    };

    @AfterEach
    void stop() {
        otherThread.shutdownNow();
    }

    @Test
    void aScriptedScenarioGivesExactCountsTaggedByNameNeverByKey() throws Exception {
        int acquired = 3;
        int notAcquired = 2;
        try (LockManager locks = LockManagerBuilder.on(reportsTakenOver).meterRegistry(registry).build()) {
            for (int order = 1; order <= acquired; order++) {
                try (LockHandle lock = locks.acquire(LockRequest.of("order:" + order).name("order"))) {
                    assertEquals(1.0, registry.get("locked.held").tags("name", "order", "mode", "pessimistic").gauge().value());
                    // a reentrant entry is no acquisition of its own
                    locks.acquire(LockRequest.of("order:" + order).name("order")).close();
                }
            }
            try (LockHandle busy = locks.acquire(LockRequest.of("order:1").name("order"))) {
                for (int attempt = 0; attempt < notAcquired; attempt++) {
                    Optional<LockHandle> refused = otherThread.submit(
                            () -> locks.tryAcquire(LockRequest.of("order:1").name("order"))).get();
                    assertTrue(refused.isEmpty(), "order:1 is held, so another thread must not get it");
                }
            }
            LockHandle report = locks.acquire(LockRequest.of("report:2026-11").name("report")
                    .mode(LockMode.OPTIMISTIC).lease(Duration.ofMillis(300)));
            Await.invalid(report, Duration.ofSeconds(10), "the refused renewal");
            assertThrows(LockLostException.class, report::close);
        }

        assertEquals(acquired + 1, acquisitions("order", "pessimistic", "acquired"));
        assertEquals(notAcquired, acquisitions("order", "pessimistic", "not_acquired"));
        assertEquals(1, acquisitions("report", "optimistic", "acquired"));
        assertEquals(acquired + 1 + notAcquired, registry.get("locked.wait").tags("name", "order").timers().stream()
                .mapToLong(timer -> timer.count()).sum());
        assertEquals(acquired + 1, registry.get("locked.hold").tags("name", "order", "outcome", "released").timer().count());
        assertEquals(1, registry.get("locked.losses").tags("name", "report", "mode", "optimistic").counter().count());
        assertEquals(1, registry.get("locked.hold").tags("name", "report", "outcome", "lost").timer().count());
        assertEquals(0, registry.find("locked.losses").tags("name", "order").counters().stream()
                .mapToDouble(counter -> counter.count()).sum());
        assertEquals(0.0, registry.get("locked.held").tags("name", "order").gauge().value());
        assertEquals(0.0, registry.get("locked.held").tags("name", "report").gauge().value());
        for (Meter meter : registry.getMeters()) {
            String name = meter.getId().getTag("name");
            assertTrue(name.equals("order") || name.equals("report"), meter.getId() + " is tagged with a key, not a name");
        }
    }

    @Test
    void aStoreFailureIsCountedAsAFailedAcquisition() {
        DelegatingRepository down = new DelegatingRepository(new InMemoryLockRepository()) {
            @Override
            public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
                throw new LockStoreUnavailableException(key, "taking the lease failed", new SQLException("connection refused"));
            }
        };
        try (LockManager locks = LockManagerBuilder.on(down).meterRegistry(registry).build()) {
            assertThrows(LockStoreUnavailableException.class,
                    () -> locks.acquire(LockRequest.of("job:nightly").mode(LockMode.OPTIMISTIC)));
        }
        assertEquals(1, registry.get("locked.store.errors").tags("name", LockRequest.DEFAULT_NAME, "mode", "optimistic",
                "operation", "acquire").counter().count());
        assertEquals(1, acquisitions(LockRequest.DEFAULT_NAME, "optimistic", "failed"));
        assertEquals(0.0, registry.get("locked.held").tags("name", LockRequest.DEFAULT_NAME).gauge().value());
    }

    @Test
    void noConnectionEndsTheAcquisitionAtOnceAndIsCountedApartFromABusyKey() {
        AtomicInteger asked = new AtomicInteger();
        DelegatingRepository drained = new DelegatingRepository(new InMemoryLockRepository()) {
            @Override
            public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
                asked.incrementAndGet();
                throw new NoConnectionException("pool 'test' (2 connections: 2 in use)");
            }

            @Override
            public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
                asked.incrementAndGet();
                throw new NoConnectionException("pool 'test' (2 connections: 2 in use)");
            }
        };
        try (LockManager locks = LockManagerBuilder.on(drained).meterRegistry(registry).build()) {
            for (LockMode mode : LockMode.values()) {
                LockRequest request = LockRequest.of("job:" + mode).mode(mode).maxWait(Duration.ofMinutes(5));
                // a wait of minutes: only an answer at once, not a loop of retries, ends this test
                LockNotAcquiredException refused = assertThrows(LockNotAcquiredException.class, () -> locks.acquire(request));
                assertEquals(LockNotAcquiredException.Reason.NO_CONNECTION, refused.reason());
                assertTrue(refused.getMessage().contains("no database connection"), refused.getMessage());
                assertEquals(LockNotAcquiredException.Reason.NO_CONNECTION,
                        assertThrows(LockNotAcquiredException.class, () -> locks.tryAcquire(request)).reason());
                String tag = mode.name().toLowerCase(Locale.ROOT);
                assertEquals(2, acquisitions(LockRequest.DEFAULT_NAME, tag, "no_connection"));
                assertEquals(0, acquisitions(LockRequest.DEFAULT_NAME, tag, "not_acquired"));
                assertEquals(2, registry.get("locked.wait").tags("name", LockRequest.DEFAULT_NAME, "mode", tag,
                        "outcome", "no_connection").timer().count());
            }
        }
        assertEquals(4, asked.get(), "the store was asked again after it had no connection");
    }

    @Test
    void aWaitThatRunsOutIsCountedBeforeTheExceptionIsThrown() throws Exception {
        try (LockManager locks = LockManagerBuilder.on(new InMemoryLockRepository()).meterRegistry(registry).build();
             LockHandle held = locks.acquire(LockRequest.of("stock:7"))) {
            assertTrue(held.isValid());
            Exception refused = otherThread.submit(() -> {
                try {
                    locks.acquire(LockRequest.of("stock:7").maxWait(Duration.ZERO));
                    return null;
                } catch (LockNotAcquiredException expected) {
                    return expected;
                }
            }).get();
            assertTrue(refused instanceof LockNotAcquiredException, String.valueOf(refused));
        }
        assertEquals(1, acquisitions(LockRequest.DEFAULT_NAME, "pessimistic", "acquired"));
        assertEquals(1, acquisitions(LockRequest.DEFAULT_NAME, "pessimistic", "not_acquired"));
    }

    @Test
    void aRegistryThatIsNoMeterRegistryIsRefused() {
        LockManagerBuilder builder = LockManagerBuilder.on(new InMemoryLockRepository());
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> builder.meterRegistry("registry"));
        assertTrue(refused.getMessage().contains("MeterRegistry"), refused.getMessage());
    }

    private long acquisitions(String name, String mode, String outcome) {
        return (long) registry.get("locked.acquisitions").tags("name", name, "mode", mode, "outcome", outcome)
                .counter().count();
    }
}
