package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.contract.LeaseKeepContract.Calls;
import io.locked.internal.base.Backoff;
import io.locked.internal.base.LockMetrics;
import io.locked.internal.base.TimeSource;
import io.locked.testing.InMemoryLockRepository;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What bounds a lease kept after its release ({@link LockManagerBuilder#keepLeasesFor}), on a time that moves only
 * where the test moves it or a sleep passes in it (at once): a run of kept leases ends with a release past its
 * bound, and the key's next take first pauses twice the longest backoff, so that another JVM's waiter finds the
 * row free; a minimum hold is released as such, never kept, and so is a lease that might run out within its keep;
 * a manager that keeps nothing sends every release; and the builder refuses a keep out of bounds. What the store
 * does with a kept lease is the contract's ({@code LeaseKeepContract}).
 */
class LeaseKeepTest {
    private final MovedTime time = new MovedTime();
    private final Calls store = new Calls(new InMemoryLockRepository());
    private final DefaultLockManager locks = new DefaultLockManager(store, time, 1, Duration.ofSeconds(30), LockMetrics.NONE);
    private final LockRequest request = LockRequest.of("k").mode(LockMode.OPTIMISTIC).lease(Duration.ofMinutes(10));

    @AfterEach
    void close() {
        locks.close();
    }

    @Test
    void aRunOfKeptLeasesEndsWithAReleaseAndTheNextTakePausesFirst() {
        locks.passKeysOn(LockManagerBuilder.DEFAULT_ROW_HAND_OVER_RUN, Duration.ofMinutes(1));
        locks.acquire(request).close();
        locks.acquire(request).close();
        assertEquals(List.of("take", "hand-over"), store.made(), "the run goes on: the second release was kept too");
        time.advance(1, TimeUnit.SECONDS); // a run lasts half a second to a second
        locks.acquire(request).close();
        assertEquals(List.of("take", "hand-over", "hand-over", "release"), store.made(),
                "the last take of the run was passed on, and its release sent");
        assertEquals(List.of(), time.sleeps, "nothing paused so far");
        locks.acquire(request).close();
        assertEquals(List.of(2 * Backoff.LONGEST_PAUSE_NANOS), time.sleeps, "the take after the run paused first");
        assertEquals(List.of("take", "hand-over", "hand-over", "release", "take"), store.made(), "then took the key anew");
        locks.acquire(request).close();
        assertEquals(List.of("take", "hand-over", "hand-over", "release", "take", "hand-over"), store.made(),
                "a new run began with that take");
        assertEquals(1, time.sleeps.size(), "and owed no pause");
    }

    @Test
    void aMinimumHoldIsReleasedAsSuchNotKept() {
        locks.passKeysOn(LockManagerBuilder.DEFAULT_ROW_HAND_OVER_RUN, Duration.ofMinutes(1));
        locks.acquire(request.holdAtLeast(Duration.ofMinutes(1))).close();
        assertEquals(List.of("take", "release, holding on"), store.made());
    }

    @Test
    void aLeaseThatMightRunOutWithinItsKeepIsReleased() {
        locks.passKeysOn(LockManagerBuilder.DEFAULT_ROW_HAND_OVER_RUN, Duration.ofMinutes(1));
        locks.acquire(request.lease(Duration.ofSeconds(30))).close();
        assertEquals(List.of("take", "release"), store.made(), "a lease of 30 s is not kept a minute");
    }

    @Test
    void aManagerThatKeepsNothingSendsEveryRelease() {
        locks.acquire(request).close();
        locks.acquire(request).close();
        assertEquals(List.of("take", "release", "take", "release"), store.made());
    }

    @Test
    void theBuilderRefusesAKeepOutOfBounds() {
        LockManagerBuilder builder = LockManagerBuilder.on(store);
        for (Duration refused : new Duration[] {null, Duration.ofNanos(-1), LockManagerBuilder.MAX_LEASE_KEEP.plusNanos(1)}) {
            IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> builder.keepLeasesFor(refused));
            assertTrue(error.getMessage().contains("zero up to 100 ms, was " + refused), error.getMessage());
        }
        builder.keepLeasesFor(Duration.ZERO).keepLeasesFor(LockManagerBuilder.MAX_LEASE_KEEP);
    }

    /** A monotonic time that stands still but where the test moves it; a sleep passes in it at once and is recorded. */
    private static final class MovedTime implements TimeSource {
        final AtomicLong offset = new AtomicLong(TimeUnit.HOURS.toNanos(1));
        final List<Long> sleeps = new CopyOnWriteArrayList<>();

        void advance(long amount, TimeUnit unit) {
            offset.addAndGet(unit.toNanos(amount));
        }

        @Override
        public long nanoTime() {
            return offset.get();
        }

        @Override
        public Clock wallClock() {
            return Clock.systemUTC();
        }

        @Override
        public void sleepNanos(long nanos) {
            sleeps.add(nanos);
            offset.addAndGet(nanos);
        }
    }
}
