package io.locked.internal.lease;

import io.locked.api.LockStoreUnavailableException;
import io.locked.contract.DelegatingRepository;
import io.locked.internal.base.TimeSource;
import io.locked.internal.lease.LeaseRenewals;
import io.locked.internal.lease.RenewableLease;
import io.locked.spi.Lease;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The watchdog's batching of renewals, against a fake store: due renewals gathered into batches
 * of the store's size, one lease lost alone, a failed batch kept and retried lease by lease. Store
 * calls run on the calling thread, and the gathering's timer is run by the test, so that nothing
 * here depends on the machine's speed.
 */
class LeaseRenewalsTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private final ManualTimer timer = new ManualTimer();

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    /** Renewals on the store, their calls on the calling thread, batches and lone renewals alike. */
    private LeaseRenewals renewalsOn(BatchingStore store) {
        return new LeaseRenewals(store, TimeSource.system(java.time.Clock.systemUTC()), timer, Runnable::run, Runnable::run, null);
    }

    @Test
    void dueRenewalsAreSentInBatchesOfTheStoresSize() {
        BatchingStore store = new BatchingStore(100);
        LeaseRenewals renewals = renewalsOn(store);
        List<FakeLease> leases = leases(250, LEASE);

        leases.forEach(renewals::due);
        assertEquals(List.of(100, 100), store.batchSizes(), "full batches go out at once");
        assertEquals(1, timer.waiting().size(), "the rest waits for its batch to fill, a part of the lease at most");
        assertEquals(LEASE.toNanos() / LeaseRenewals.GATHER_PART, timer.delays.get(0));

        timer.runWaiting();
        assertEquals(List.of(100, 100, 50), store.batchSizes(), "at the end of the wait, the batch goes out as it is");
        for (FakeLease lease : leases) {
            assertEquals(1, lease.renewals.size(), "each lease renewed once: " + lease.key);
            assertFalse(lease.renewalUnderway().get(), "each renewal's end is known");
        }
        assertEquals(0, store.aloneRenewals, "no lease renewed alone");
    }

    @Test
    void leasesOfDifferentLengthsGoInDifferentBatches() {
        BatchingStore store = new BatchingStore(100);
        LeaseRenewals renewals = renewalsOn(store);
        leases(3, LEASE).forEach(renewals::due);
        leases(2, Duration.ofSeconds(60)).forEach(renewals::due);
        timer.runWaiting();
        assertEquals(Set.of(List.of(LEASE, LEASE, LEASE), List.of(Duration.ofSeconds(60), Duration.ofSeconds(60))),
                Set.copyOf(store.durations));
    }

    /**
     * A lease with a lock-delay is stored longer than its holder counts it: a 1 s lease with an 11 s delay is
     * stored as 12 s, like a 12 s lease without one. Gathered with the 12 s lease, its renewal would wait a
     * twelfth of 12 s, past its own 1 s: it waits for a batch of its own holder's length instead.
     */
    @Test
    void leasesOfOneStoredLengthButOtherHoldersLengthsWaitEachTheirOwnPart() {
        BatchingStore store = new BatchingStore(100);
        LeaseRenewals renewals = renewalsOn(store);
        Duration stored = Duration.ofSeconds(12);
        FakeLease plain = new FakeLease(new Lease("plain", "owner-plain", 1, 1), stored, stored);
        FakeLease delayed = new FakeLease(new Lease("delayed", "owner-delayed", 2, 1), Duration.ofSeconds(1), stored);
        renewals.due(plain);
        renewals.due(delayed);
        assertEquals(List.of(stored.toNanos() / LeaseRenewals.GATHER_PART, Duration.ofSeconds(1).toNanos() / LeaseRenewals.GATHER_PART),
                timer.delays, "each waits a part of its holder's own lease");
        timer.runWaiting();
        assertEquals(Set.of(List.of(plain.lease), List.of(delayed.lease)), Set.copyOf(store.batches), "in batches of their own");
        assertEquals(List.of(List.of(stored), List.of(stored)), store.durations, "both renewed to their stored length");
    }

    @Test
    void aLeaseFoundLostInItsBatchIsLostAloneAndTheOthersAreRenewed() {
        BatchingStore store = new BatchingStore(100);
        LeaseRenewals renewals = renewalsOn(store);
        List<FakeLease> leases = leases(5, LEASE);
        store.lostKeys.add(leases.get(2).key);

        leases.forEach(renewals::due);
        timer.runWaiting();

        assertEquals(List.of(5), store.batchSizes());
        for (FakeLease lease : leases) {
            Lease answer = lease.renewals.get(0);
            if (lease == leases.get(2)) {
                assertNull(answer, "the lost lease is told it was lost");
            } else {
                assertEquals(lease.lease, answer, "the others are renewed");
            }
        }
    }

    @Test
    void aFailedBatchKeepsItsLeasesAndRenewsEachAloneNextTime() {
        BatchingStore store = new BatchingStore(100);
        LeaseRenewals renewals = renewalsOn(store);
        List<FakeLease> leases = leases(4, LEASE);
        store.failing = true;

        leases.forEach(renewals::due);
        timer.runWaiting();
        for (FakeLease lease : leases) {
            assertEquals(1, lease.failures.size(), "a failed batch is a failed renewal of each lease, none lost");
            assertTrue(lease.renewals.isEmpty());
            assertTrue(lease.renewsAlone());
        }

        store.failing = false;
        leases.forEach(renewals::due);
        assertTrue(timer.waiting().isEmpty(), "a lease whose batch failed waits for no batch");
        assertEquals(List.of(4), store.batchSizes(), "no batch sent since the failed one");
        for (FakeLease lease : leases) {
            assertEquals(1, lease.aloneRenewals, "renewed alone after its batch failed: " + lease.key);
        }
    }

    @Test
    void aStoreWithoutBatchesRenewsEachLeaseAloneAtOnce() {
        BatchingStore store = new BatchingStore(1);
        LeaseRenewals renewals = renewalsOn(store);
        List<FakeLease> leases = leases(3, LEASE);
        leases.forEach(renewals::due);
        assertTrue(timer.waiting().isEmpty(), "no wait for a batch");
        assertTrue(store.batchSizes().isEmpty());
        leases.forEach(lease -> assertEquals(1, lease.aloneRenewals));
    }

    @Test
    void aTickWhileTheLeasesRenewalIsGatheredIsSkipped() {
        BatchingStore store = new BatchingStore(100);
        LeaseRenewals renewals = renewalsOn(store);
        FakeLease lease = leases(1, LEASE).get(0);
        renewals.due(lease);
        renewals.due(lease);
        timer.runWaiting();
        assertEquals(List.of(1), store.batchSizes(), "sent once, in one batch");
        renewals.due(lease);
        timer.runWaiting();
        assertEquals(List.of(1, 1), store.batchSizes(), "the next tick after the answer renews again");
    }

    @Test
    void aLeaseReleasedWhileGatheredIsLeftOut() {
        BatchingStore store = new BatchingStore(100);
        LeaseRenewals renewals = renewalsOn(store);
        List<FakeLease> leases = leases(3, LEASE);
        leases.forEach(renewals::due);
        leases.get(1).released = true;
        timer.runWaiting();
        assertEquals(List.of(2), store.batchSizes());
        assertFalse(leases.get(1).renewalUnderway().get());
    }

    private static List<FakeLease> leases(int count, Duration length) {
        List<FakeLease> leases = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String key = "key-" + length + "-" + i;
            leases.add(new FakeLease(new Lease(key, "owner-" + i, i, 1), length));
        }
        return leases;
    }

    /** A scheduler whose delayed tasks wait for the test to run them, unless cancelled. */
    private static final class ManualTimer extends ScheduledThreadPoolExecutor {
        private final List<Runnable> commands = new ArrayList<>();
        private final List<ScheduledFuture<?>> futures = new ArrayList<>();
        final List<Long> delays = new ArrayList<>();

        ManualTimer() {
            super(1);
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            ScheduledFuture<?> future = super.schedule(() -> { }, 1, TimeUnit.DAYS);
            commands.add(command);
            futures.add(future);
            delays.add(unit.toNanos(delay));
            return future;
        }

        /** @return the tasks waiting, not cancelled */
        List<Runnable> waiting() {
            List<Runnable> waiting = new ArrayList<>();
            for (int i = 0; i < commands.size(); i++) {
                if (!futures.get(i).isCancelled()) {
                    waiting.add(commands.get(i));
                }
            }
            return waiting;
        }

        void runWaiting() {
            List<Runnable> due = waiting();
            commands.clear();
            futures.forEach(future -> future.cancel(false));
            futures.clear();
            due.forEach(Runnable::run);
        }
    }

    private static final class BatchingStore extends DelegatingRepository {
        private final int batchSize;
        final List<List<Lease>> batches = new ArrayList<>();
        final List<List<Duration>> durations = new ArrayList<>();
        final List<String> lostKeys = new ArrayList<>();
        volatile boolean failing;
        int aloneRenewals;

        BatchingStore(int batchSize) {
            super(new InMemoryLockRepository());
            this.batchSize = batchSize;
        }

        @Override
        public int renewalBatchSize() {
            return batchSize;
        }

        @Override
        public Lease renewLease(Lease lease, Duration duration) {
            aloneRenewals++;
            return lease;
        }

        @Override
        public synchronized List<Lease> renewLeases(List<Lease> leases, Duration duration) {
            batches.add(List.copyOf(leases));
            durations.add(leases.stream().map(any -> duration).toList());
            if (failing) {
                throw new LockStoreUnavailableException(leases.get(0).key(), "store down in the test", null);
            }
            List<Lease> answers = new ArrayList<>();
            for (Lease lease : leases) {
                answers.add(lostKeys.contains(lease.key()) ? null : lease);
            }
            return answers;
        }

        List<Integer> batchSizes() {
            return batches.stream().map(List::size).toList();
        }
    }

    private static final class FakeLease implements RenewableLease {
        final String key;
        final Lease lease;
        private final Duration length;
        private final Duration stored;
        private final AtomicBoolean underway = new AtomicBoolean();
        final List<Lease> renewals = new ArrayList<>();
        final List<RuntimeException> failures = new ArrayList<>();
        boolean renewsAlone;
        boolean released;
        int aloneRenewals;

        FakeLease(Lease lease, Duration length) {
            this(lease, length, length);
        }

        FakeLease(Lease lease, Duration length, Duration stored) {
            this.key = lease.key();
            this.lease = lease;
            this.length = length;
            this.stored = stored;
        }

        @Override
        public Duration storedLease() {
            return stored;
        }

        @Override
        public Duration leaseLength() {
            return length;
        }

        @Override
        public AtomicBoolean renewalUnderway() {
            return underway;
        }

        @Override
        public boolean renewsAlone() {
            return renewsAlone;
        }

        @Override
        public Lease leaseToRenew() {
            return released ? null : lease;
        }

        @Override
        public void renewed(Lease renewed, long sentAtNanos) {
            renewals.add(renewed);
            renewsAlone = false;
        }

        @Override
        public void renewalFailed(RuntimeException failure, boolean inBatch) {
            failures.add(failure);
            renewsAlone = renewsAlone || inBatch;
        }

        @Override
        public void renew() {
            aloneRenewals++;
            renewed(lease, 0);
        }

        @Override
        public void startRenewal(RenewalSchedule schedule) {
            // these tests call the renewals themselves
        }
    }
}
