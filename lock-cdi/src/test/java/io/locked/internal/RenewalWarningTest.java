package io.locked.internal;

import io.locked.api.LockHandle;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.LockStoreUnavailableException;
import io.locked.api.event.LockRenewalFailed;
import io.locked.contract.DelegatingRepository;
import io.locked.internal.base.LockMetrics;
import io.locked.internal.exclusive.Handle;
import io.locked.internal.exclusive.OptimisticAcquisition;
import io.locked.spi.Lease;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The early warning of {@link LockHandle#onRenewalFailure}: once per renewal that failed while the lease
 * still had time, with that time; never for a renewal that succeeded, nor once the lease is lost. The
 * watchdog's tick is played by calling the renewal itself, on a clock the test moves.
 */
class RenewalWarningTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private final ShiftableTime time = new ShiftableTime();
    private final AtomicBoolean storeDown = new AtomicBoolean();
    private final AtomicBoolean takenOver = new AtomicBoolean();
    /** A renewal that fails only after the lease ran out: a statement that timed out past the lease. */
    private final AtomicBoolean failsPastTheLease = new AtomicBoolean();
    private final InMemoryLockRepository rows = new InMemoryLockRepository();
    private final DelegatingRepository store = new DelegatingRepository(rows) {
        @Override
        public Lease renewLease(Lease lease, Duration duration) {
            if (storeDown.get()) {
                throw new LockStoreUnavailableException(lease.key(), "the database does not answer", null);
            }
            if (failsPastTheLease.get()) {
                time.advance(LEASE.toSeconds() + 1, TimeUnit.SECONDS);
                throw new LockStoreUnavailableException(lease.key(), "the statement timed out", null);
            }
            return takenOver.get() ? null : super.renewLease(lease, duration);
        }
    };
    private final DefaultLockManager locks = new DefaultLockManager(store, time, 1, LEASE, LockMetrics.NONE);
    private final List<LockRenewalFailed> warnings = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        locks.close();
    }

    private LockHandle acquire(String key) {
        return locks.acquire(LockRequest.of(key).mode(LockMode.OPTIMISTIC).lease(LEASE)).onRenewalFailure(warnings::add);
    }

    private static void tick(LockHandle handle) {
        ((OptimisticAcquisition) ((Handle) handle).acquisition).renew();
    }

    @Test
    void eachFailedRenewalOfALiveLeaseWarnsOnceWithTheTimeLeft() {
        long before = System.nanoTime();
        LockHandle held = acquire("warned");
        time.advance(10, TimeUnit.SECONDS);
        storeDown.set(true);

        tick(held);
        Duration elapsed = Duration.ofNanos(System.nanoTime() - before);
        assertEquals(1, warnings.size());
        LockRenewalFailed warning = warnings.get(0);
        assertEquals("warned", warning.key());
        assertEquals(LockMode.OPTIMISTIC, warning.mode());
        assertEquals(held.token(), warning.token());
        assertTrue(warning.cause().contains("the database does not answer"), warning.cause());
        Duration left = warning.timeLeft();
        assertTrue(left.compareTo(LEASE.minusSeconds(10)) <= 0, "at most what the clock left: " + left);
        assertTrue(left.compareTo(LEASE.minusSeconds(10).minus(elapsed)) >= 0, "no less than that, minus the test's own run: "
                + left);
        assertTrue(held.isValid(), "a warning, not a loss");

        time.advance(10, TimeUnit.SECONDS);
        tick(held);
        assertEquals(2, warnings.size(), "once per failed renewal");
        assertTrue(warnings.get(1).timeLeft().compareTo(left) < 0, "less time left at the second");

        storeDown.set(false);
        held.close();
    }

    @Test
    void aRenewalThatSucceedsDoesNotWarn() {
        LockHandle held = acquire("renewed");
        time.advance(10, TimeUnit.SECONDS);
        tick(held);
        tick(held);
        assertEquals(List.of(), warnings);
        held.close();
    }

    @Test
    void aFailedRenewalAfterTheLeaseRanOutIsALossNotAWarning() {
        LockHandle held = acquire("ran-out");
        storeDown.set(true);
        time.advance(31, TimeUnit.SECONDS);
        tick(held);
        assertEquals(List.of(), warnings);
        assertFalse(held.isValid());
    }

    @Test
    void aRenewalThatFailsOnlyAfterTheLeaseRanOutIsNoWarning() {
        LockHandle held = acquire("timed-out");
        failsPastTheLease.set(true);
        tick(held);
        assertEquals(List.of(), warnings, "no time was left when it failed");
        assertFalse(held.isValid());
    }

    @Test
    void aRenewalThatFindsTheLeaseTakenOverIsALossNotAWarning() {
        LockHandle held = acquire("taken");
        takenOver.set(true); // as after an operator's forced release: the store answers, and not for us
        tick(held);
        assertEquals(List.of(), warnings);
        assertFalse(held.isValid());
    }

    @Test
    void aListenerThatThrowsKeepsTheOthersAndTheLock() {
        LockHandle held = locks.acquire(LockRequest.of("throws").mode(LockMode.OPTIMISTIC).lease(LEASE));
        LockHandle same = held.onRenewalFailure(warning -> {
            throw new IllegalStateException("a listener's bug");
        });
        assertSame(held, same);
        held.onRenewalFailure(warnings::add);
        storeDown.set(true);
        tick(held);
        assertEquals(1, warnings.size());
        assertTrue(held.isValid());
        storeDown.set(false);
        held.close();
    }

    @Test
    void aNestedHandleHearsTheAcquisitionsRenewalsAndOneListenerIsToldOnce() {
        try (LockHandle outer = locks.acquire(LockRequest.of("nested").mode(LockMode.OPTIMISTIC).lease(LEASE))) {
            Consumer<LockRenewalFailed> listener = warnings::add;
            outer.onRenewalFailure(listener);
            try (LockHandle inner = locks.acquire(LockRequest.of("nested").mode(LockMode.OPTIMISTIC).lease(LEASE))) {
                inner.onRenewalFailure(listener); // the same listener again, as each @Locked entry adds its own
                storeDown.set(true);
                tick(outer);
                storeDown.set(false);
            }
            assertEquals(1, warnings.size(), "told once, though added twice");
            assertEquals(outer.token(), warnings.get(0).token());
        }
    }
}
