package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.contract.DelegatingRepository;
import io.locked.spi.Lease;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A batch of renewals whose call hangs (a row locked elsewhere, until its statement's timeout) holds up
 * the batches due with or after it only for a moment: the watchdog runs batches one after another on one
 * thread, and another thread takes those queued behind a call that does not end. Real threads, a store in
 * memory that renews two leases a call and hangs every batch holding the key "stuck".
 */
class HungBatchTest {
    private static final Duration HANG_DETECTOR = Duration.ofSeconds(30);
    // renewed every second, so a renewal held up a few tens of milliseconds is still far from the lease's end
    private static final Duration LEASE = Duration.ofSeconds(3);
    private final StallingBatches store = new StallingBatches();
    private final LockManager locks = LockManagerBuilder.on(store).build();

    @AfterEach
    void close() {
        store.released.countDown();
        locks.close();
    }

    @Test
    void aHungBatchHoldsUpNoOtherBatch() throws Exception {
        List<LockHandle> held = new ArrayList<>();
        held.add(locks.acquire(optimistic("stuck")));
        for (int i = 0; i < 5; i++) {
            held.add(locks.acquire(optimistic("other-" + i)));
        }
        try {
            assertTimeoutPreemptively(HANG_DETECTOR, () -> {
                store.stalled.await();
                // the leases of other batches: all but "stuck" and the one lease that may share its batch
                List<LockHandle> others = held.stream().filter(handle -> !store.hung.contains(handle.key())).toList();
                assertTrue(others.size() >= 4, "the hung batch holds two leases at most");
                Map<String, Integer> before = new HashMap<>();
                others.forEach(other -> before.put(other.key(), store.renewals(other.key())));
                // two renewals of each, every one of them past the hung batch's thread; or one of them lost
                while (others.stream().allMatch(LockHandle::isValid)
                        && !others.stream().allMatch(other -> store.renewals(other.key()) >= before.get(other.key()) + 2)) {
                    Thread.sleep(10);
                }
                for (LockHandle other : others) {
                    assertTrue(other.isValid(), "a batch hung on another key stopped the renewals of " + other.key());
                }
            });
        } finally {
            store.released.countDown();
            for (LockHandle handle : held) {
                try {
                    handle.close();
                } catch (LockLostException ranOut) {
                    // a lease of the hung batch, or the one whose loss failed the assertion above
                }
            }
        }
    }

    private static LockRequest optimistic(String key) {
        return LockRequest.of(key).mode(LockMode.OPTIMISTIC).lease(LEASE);
    }

    private static final class StallingBatches extends DelegatingRepository {
        final CountDownLatch stalled = new CountDownLatch(1);
        final CountDownLatch released = new CountDownLatch(1);
        /** The keys of the batches that hang. */
        final Set<String> hung = ConcurrentHashMap.newKeySet();
        private final Map<String, AtomicInteger> renewed = new ConcurrentHashMap<>();

        StallingBatches() {
            super(new InMemoryLockRepository());
        }

        int renewals(String key) {
            return renewed.computeIfAbsent(key, any -> new AtomicInteger()).get();
        }

        @Override
        public int renewalBatchSize() {
            return 2;
        }

        @Override
        public List<Lease> renewLeases(List<Lease> leases, Duration duration) {
            if (leases.stream().anyMatch(lease -> lease.key().equals("stuck"))) {
                leases.forEach(lease -> hung.add(lease.key()));
                stalled.countDown();
                try {
                    released.await();
                } catch (InterruptedException closed) {
                    Thread.currentThread().interrupt();
                }
            }
            List<Lease> answers = new ArrayList<>();
            for (Lease lease : leases) {
                Lease answer = delegate.renewLease(lease, duration);
                if (answer != null) {
                    renewed.computeIfAbsent(lease.key(), any -> new AtomicInteger()).incrementAndGet();
                }
                answers.add(answer);
            }
            return answers;
        }
    }
}
