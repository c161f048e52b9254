package io.locked.internal.exclusive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockStoreUnavailableException;
import io.locked.contract.DelegatingRepository;
import io.locked.internal.base.KeepSweep;
import io.locked.internal.base.KeepTimer;
import io.locked.spi.Lease;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How a failed release is sent again ({@link ReleaseRetries}), on a timer whose tasks run only when the test runs
 * them, at the instant it sets: every {@link ReleaseRetries#RETRY_NANOS} until the store answers, as the release
 * it was (a minimum hold's too), never once the lease ran out on this JVM's count or the manager closed, and at
 * most {@link KeepSweep#MOST_KEPT} at once. A failure the store did not report as its being unreachable (a
 * lost lease says so by its answer) is not sent again.
 */
class ReleaseRetriesTest {
    private static final long LIVE = TimeUnit.SECONDS.toNanos(10);
    private final ManualTimer timer = new ManualTimer();
    private final Outage store = new Outage();
    private final ReleaseRetries retries = new ReleaseRetries(timer);

    @Test
    void aFailedReleaseIsSentAgainEverySecondUntilTheStoreAnswers() {
        Lease lease = store.takeLease("k", "owner", "holder", Duration.ofMinutes(1), Duration.ZERO);
        store.down = true;
        assertThrows(LockStoreUnavailableException.class, () -> retries.release(store, lease, null, LIVE, "holder"));
        assertEquals(List.of("release (refused)"), store.sent);
        timer.runDue(ReleaseRetries.RETRY_NANOS);
        assertEquals(List.of("release (refused)", "release (refused)"), store.sent, "sent again a second later");
        store.down = false;
        timer.runDue(2 * ReleaseRetries.RETRY_NANOS);
        assertEquals(List.of("release (refused)", "release (refused)", "release"), store.sent);
        assertTrue(takenByAnother("k"), "the key is free");
        timer.runDue(5 * ReleaseRetries.RETRY_NANOS);
        assertEquals(3, store.sent.size(), "nothing is sent once the release went through");
    }

    @Test
    void aMinimumHoldsReleaseIsSentAgainAsSuch() {
        Lease lease = store.takeLease("k", "owner", "holder", Duration.ofMinutes(1), Duration.ZERO);
        store.down = true;
        assertThrows(LockStoreUnavailableException.class,
                () -> retries.release(store, lease, Duration.ofSeconds(30), LIVE, "holder"));
        store.down = false;
        timer.runDue(ReleaseRetries.RETRY_NANOS);
        assertEquals(List.of("release, holding on (refused)", "release, holding on"), store.sent);
    }

    @Test
    void nothingIsSentOnceTheLeaseRanOutOnThisJvmsCount() {
        Lease lease = store.takeLease("k", "owner", "holder", Duration.ofMinutes(1), Duration.ZERO);
        store.down = true;
        assertThrows(LockStoreUnavailableException.class,
                () -> retries.release(store, lease, null, 3 * ReleaseRetries.RETRY_NANOS, "holder"));
        timer.runDue(10 * ReleaseRetries.RETRY_NANOS);
        assertEquals(3, store.sent.size(), "sent at 0, 1 and 2 seconds; at 3 the lease is gone: " + store.sent);
        assertEquals(0, timer.pending(), "nothing left waiting");
    }

    @Test
    void nothingIsSentAfterTheManagerClosed() {
        Lease lease = store.takeLease("k", "owner", "holder", Duration.ofMinutes(1), Duration.ZERO);
        store.down = true;
        assertThrows(LockStoreUnavailableException.class, () -> retries.release(store, lease, null, LIVE, "holder"));
        retries.close();
        store.down = false;
        timer.runDue(5 * ReleaseRetries.RETRY_NANOS);
        assertEquals(List.of("release (refused)"), store.sent);
        assertFalse(takenByAnother("k"), "the lease runs out on its own");
    }

    @Test
    void atMostSoManyReleasesWaitAtOnce() {
        store.down = true;
        for (int i = 0; i <= KeepSweep.MOST_KEPT; i++) {
            Lease lease = store.takeLease("k" + i, "owner", "holder", Duration.ofMinutes(1), Duration.ZERO);
            assertThrows(LockStoreUnavailableException.class, () -> retries.release(store, lease, null, LIVE, "holder"));
        }
        assertEquals(KeepSweep.MOST_KEPT, timer.pending(), "the last one past the bound is left to run out");
        store.down = false;
        timer.runDue(ReleaseRetries.RETRY_NANOS);
        assertEquals(0, timer.pending());
        Lease lease = store.takeLease("again", "owner", "holder", Duration.ofMinutes(1), Duration.ZERO);
        store.down = true;
        assertThrows(LockStoreUnavailableException.class, () -> retries.release(store, lease, null, LIVE, "holder"));
        assertEquals(1, timer.pending(), "room again once they went through");
    }

    @Test
    void aManagerWithoutATimerSendsNothingAgain() {
        Lease lease = store.takeLease("k", "owner", "holder", Duration.ofMinutes(1), Duration.ZERO);
        store.down = true;
        assertThrows(LockStoreUnavailableException.class, () -> ReleaseRetries.NONE.release(store, lease, null, LIVE, "holder"));
        assertEquals(1, store.sent.size());
    }

    private boolean takenByAnother(String key) {
        return store.takeLease(key, "another", "another holder", Duration.ofMinutes(1), Duration.ZERO) != null;
    }

    /** An in-memory store whose releases fail while it is down, with every release asked for. */
    private static final class Outage extends DelegatingRepository {
        final List<String> sent = new ArrayList<>();
        volatile boolean down;

        Outage() {
            super(new InMemoryLockRepository());
        }

        @Override
        public boolean releaseLease(Lease lease) {
            return answer("release", lease) && super.releaseLease(lease);
        }

        @Override
        public boolean releaseLease(Lease lease, Duration holdAtLeast) {
            return answer("release, holding on", lease) && super.releaseLease(lease, holdAtLeast);
        }

        private boolean answer(String call, Lease lease) {
            sent.add(down ? call + " (refused)" : call);
            if (down) {
                throw new LockStoreUnavailableException(lease.key(), "down", null);
            }
            return true;
        }
    }

    /** Runs its tasks only in {@link #runDue}, each at the instant it was due. */
    private static final class ManualTimer implements KeepTimer {
        private record Task(long dueNanos, Runnable task) {
        }

        private final List<Task> tasks = new ArrayList<>();
        private long now;

        @Override
        public boolean once(long nanos, Runnable task) {
            tasks.add(new Task(now + nanos, task));
            return true;
        }

        @Override
        public long nanoTime() {
            return now;
        }

        int pending() {
            return tasks.size();
        }

        /** Moves the time on by {@code nanos}, running each task that falls due on the way, at its instant. */
        void runDue(long nanos) {
            long end = now + nanos;
            while (true) {
                Task next = tasks.stream().filter(task -> task.dueNanos() <= end)
                        .min((a, b) -> Long.compare(a.dueNanos(), b.dueNanos())).orElse(null);
                if (next == null) {
                    now = end;
                    return;
                }
                tasks.remove(next);
                now = Math.max(now, next.dueNanos());
                next.task().run();
            }
        }
    }
}
