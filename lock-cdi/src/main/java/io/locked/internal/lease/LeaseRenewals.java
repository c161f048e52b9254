package io.locked.internal.lease;

import io.locked.api.LockStoreUnavailableException;
import io.locked.internal.base.TimeSource;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Sends the renewals that fall due, in batches where the store renews several leases in one call
 * ({@link LockRepository#renewalBatchSize()}), so that a JVM holding thousands of leases sends a
 * few statements per renewal period instead of one per lease.
 *
 * <p>A due renewal waits for others of the same lease lengths (stored and counted) to join it, at most a
 * {@value #GATHER_PART}th of its lease, or until the batch is full. Leases taken at different
 * moments then share a batch: with ticks every third of the lease (on a grid of that twelfth, see
 * {@link LeaseWatchdog#watch}), a renewal goes out at most 5/12 of the lease after the last one,
 * still before half the lease is gone. A store that renews one lease per call gets no wait: each
 * lease is renewed alone, at once, as its tick comes.
 *
 * <p>The store answers per lease, so a lease found lost is lost alone. A batch whose call failed
 * (a store down, a statement's timeout) is a failed renewal for each of its leases, as for a
 * lease renewed alone: each is kept until it runs out, and renews alone from then on until a
 * renewal succeeds, so that a row that stalls a batch's statement (another session's row lock)
 * costs its own lease only, not those that shared its batch.
 */
public final class LeaseRenewals {
    /** The longest wait of a due renewal for its batch, as a part of its lease: 2.5 s of a 30 s lease. */
    static final int GATHER_PART = 12;
    private final LockRepository repository;
    /**
     * The store's batch size, asked at the first lease rather than when the manager is built: a store
     * that cannot be made yet (its table missing) must fail its first call and its readiness check,
     * not the manager's creation. 0 until asked.
     */
    private volatile int batchSize;
    private final TimeSource time;
    private final ScheduledExecutorService scheduler;
    private final Executor calls;
    /** Where batches run: {@link BatchCalls} in a lock manager. */
    private final Executor batchCalls;
    /** Renewals gathered for their batch, by stored lease length and holder's lease length; guarded by this. */
    private final Map<BatchOf, Gathering> gathering = new HashMap<>();
    /** A bug seeded for the model checking's negative controls only (LeaseRenewalsModelTest); null everywhere else. */
    private final SeededBug seededBug;
    /** The leases as read when they joined their batch, for {@link SeededBug#READ_WHEN_GATHERED} only; guarded by this. */
    private final Map<RenewableLease, Lease> readWhenGathered = new IdentityHashMap<>();

    /** The bugs the model checking must find. */
    enum SeededBug {
        /** A lease is read for its renewal when it joins its batch, not when the batch goes out: one released meanwhile is renewed. */
        READ_WHEN_GATHERED,
        /** A batch goes out once it has more leases than the store renews in one call, not once it has as many. */
        ONE_PAST_FULL
    }

    /**
     * What leases must share to share a batch: the length the store is asked for, which is the batch's one
     * parameter, and the holder's own lease length, which decides how long a renewal may wait for its batch.
     * A lease with a lock-delay is stored longer than its holder counts it: gathered by stored length alone,
     * it would wait a part of another lease, past its own.
     */
    private record BatchOf(Duration storedLease, Duration leaseLength) {
    }

    private static final class Gathering {
        final List<RenewableLease> due = new ArrayList<>();
        ScheduledFuture<?> flush;
    }

    /**
     * @param repository the store the leases are in
     * @param time       the clock the leases count their validity on
     * @param scheduler  where a gathering batch waits for its time
     * @param calls      where the renewal of a lease alone runs, one thread each
     * @param batchCalls where batches run
     * @param seededBug  the bug a negative control seeds, or null
     */
    LeaseRenewals(LockRepository repository, TimeSource time, ScheduledExecutorService scheduler, Executor calls,
                  Executor batchCalls, SeededBug seededBug) {
        this.seededBug = seededBug;
        this.repository = repository;
        this.time = time;
        this.scheduler = scheduler;
        this.calls = calls;
        this.batchCalls = batchCalls;
    }

    /** @return whether the store renews several leases per call, so that due renewals wait for their batch */
    boolean batches() {
        return batchSize() > 1;
    }

    private int batchSize() {
        int known = batchSize;
        if (known == 0) {
            known = Math.max(1, repository.renewalBatchSize());
            batchSize = known;
        }
        return known;
    }

    /** A lease's renewal is due: renews it alone or in its batch, unless its last renewal is still underway. */
    void due(RenewableLease lease) {
        if (!lease.renewalUnderway().compareAndSet(false, true)) {
            return;
        }
        int batchSize = batchSize();
        if (batchSize == 1 || lease.renewsAlone()) {
            startAlone(lease);
            return;
        }
        BatchOf kind = new BatchOf(lease.storedLease(), lease.leaseLength());
        List<RenewableLease> batch = null;
        synchronized (this) {
            Gathering batchOf = gathering.computeIfAbsent(kind, any -> new Gathering());
            batchOf.due.add(lease);
            if (seededBug == SeededBug.READ_WHEN_GATHERED) {
                readWhenGathered.put(lease, lease.leaseToRenew());
            }
            if (batchOf.due.size() >= batchSize + (seededBug == SeededBug.ONE_PAST_FULL ? 1 : 0)) {
                batch = close(kind);
            } else if (batchOf.flush == null) {
                long waitNanos = Math.max(1, kind.leaseLength().toNanos() / GATHER_PART);
                try {
                    batchOf.flush = scheduler.schedule(() -> flush(kind, batchOf), waitNanos, TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException closed) {
                    batch = close(kind);
                }
            }
        }
        if (batch != null) {
            start(batch, kind.storedLease());
        }
    }

    private void flush(BatchOf kind, Gathering batchOf) {
        List<RenewableLease> batch;
        synchronized (this) {
            // a batch that filled up has gone out already; a newer one keeps its own time
            batch = gathering.get(kind) == batchOf ? close(kind) : null;
        }
        if (batch != null) {
            start(batch, kind.storedLease());
        }
    }

    /** Ends the gathering of a batch; guarded by this. */
    private List<RenewableLease> close(BatchOf kind) {
        Gathering batchOf = gathering.remove(kind);
        if (batchOf == null) {
            return null;
        }
        if (batchOf.flush != null) {
            batchOf.flush.cancel(false);
        }
        return batchOf.due;
    }

    private void startAlone(RenewableLease lease) {
        try {
            calls.execute(() -> {
                try {
                    lease.renew();
                } finally {
                    lease.renewalUnderway().set(false);
                }
            });
        } catch (RejectedExecutionException closed) {
            lease.renewalUnderway().set(false);
        }
    }

    private void start(List<RenewableLease> batch, Duration length) {
        try {
            batchCalls.execute(() -> renew(batch, length));
        } catch (RejectedExecutionException closed) {
            batch.forEach(lease -> lease.renewalUnderway().set(false));
        }
    }

    private synchronized Lease readWhenGathered(RenewableLease lease) {
        return readWhenGathered.remove(lease);
    }

    /** Renews a batch in one store call, and tells each lease the store's answer about it. */
    private void renew(List<RenewableLease> batch, Duration length) {
        List<RenewableLease> sent = new ArrayList<>(batch.size());
        List<Lease> leases = new ArrayList<>(batch.size());
        try {
            for (RenewableLease lease : batch) {
                Lease current = seededBug == SeededBug.READ_WHEN_GATHERED ? readWhenGathered(lease) : lease.leaseToRenew();
                if (current == null) {
                    lease.renewalUnderway().set(false);
                } else {
                    sent.add(lease);
                    leases.add(current);
                }
            }
            if (leases.isEmpty()) {
                return;
            }
            long sentAt = time.nanoTime();
            List<Lease> answers;
            try {
                answers = repository.renewLeases(leases, length);
                if (answers == null || answers.size() != leases.size()) {
                    throw new LockStoreUnavailableException(leases.get(0).key(), "the store answered a renewal of "
                            + leases.size() + " leases with " + (answers == null ? "nothing" : answers.size() + " answers"),
                            null);
                }
            } catch (RuntimeException failure) {
                sent.forEach(lease -> lease.renewalFailed(failure, true));
                return;
            }
            for (int i = 0; i < sent.size(); i++) {
                sent.get(i).renewed(answers.get(i), sentAt);
            }
        } finally {
            sent.forEach(lease -> lease.renewalUnderway().set(false));
        }
    }
}
