package io.locked.internal.exclusive;

import io.locked.api.LockException;
import io.locked.api.LockManagerClosedException;
import io.locked.api.LockRequest;
import io.locked.api.LockType;
import io.locked.internal.base.Backoff;
import io.locked.internal.base.LockMeter;
import io.locked.internal.base.TimeSource;
import io.locked.internal.lease.LeaseWatchdog;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * The {@code OPTIMISTIC} mode's acquisition of a row, once the key's turn is this thread's: a lease the previous
 * local holder handed over with the turn, else the key's lease kept after its last release here
 * ({@link KeptLeases}), else a take at the database, tried again with backoff until the wait runs out. Each lease
 * got is watched (renewed) from then on.
 */
final class LeaseTakes {
    private final LockRepository repository;
    private final TimeSource time;
    private final LeaseWatchdog watchdog;
    private final KeptLeases keptLeases;
    private final ReleaseRetries releases;
    private final BooleanSupplier closing;
    /** A bug seeded for the simulation's negative controls only, or null. */
    private final ExclusiveSeededBug seededBug;

    LeaseTakes(LockRepository repository, TimeSource time, LeaseWatchdog watchdog, KeptLeases keptLeases,
               ReleaseRetries releases, BooleanSupplier closing, ExclusiveSeededBug seededBug) {
        this.repository = repository;
        this.time = time;
        this.watchdog = watchdog;
        this.keptLeases = keptLeases;
        this.releases = releases;
        this.closing = closing;
        this.seededBug = seededBug;
    }

    /** @return the acquisition, or null if the wait ran out */
    Acquisition acquire(String key, String owner, String holder, LockRequest request, long deadline, ThreadScope scope,
                        KeyTurns.Turn turn, LockMeter meter) {
        Duration storedLease = request.lease().plus(request.lockDelay());
        if (turn.handed() instanceof HandOvers.HandedLease handed) {
            // the previous local holder passed its live lease on: no statement of our own
            return optimistic(handed.lease(), holder, request, handed.sentAtNanos(), null, scope, turn, meter);
        }
        KeptLeases.Kept kept = keptLeases.take(key);
        // twice the longest pause: a waiter elsewhere polls every pause plus a round trip
        long pause = turn.yieldFirst() ? 2 * Backoff.LONGEST_PAUSE_NANOS : keptLeases.pauseOwed(kept);
        if (kept != null && kept.lease() != null) {
            long sentAt = time.nanoTime();
            Lease passed = pause > 0 ? null : seededBug == ExclusiveSeededBug.KEPT_LEASE_REUSED ? kept.lease()
                    : keptLeases.passOn(kept, owner, holder, storedLease);
            if (passed != null) {
                return optimistic(passed, holder, request, sentAt, kept, scope, turn, meter);
            }
            if (pause > 0) {
                keptLeases.release(kept);
            }
        }
        if (pause > 0 && !Backoff.sleep(time, key, deadline, pause)) {
            return null;
        }
        Backoff backoff = Backoff.standard();
        while (true) {
            long sentAt = time.nanoTime();
            Lease lease = repository.takeLease(key, owner, holder, storedLease, Duration.ofNanos(Math.max(0, deadline - sentAt)));
            if (lease != null) {
                return optimistic(lease, holder, request, sentAt, null, scope, turn, meter);
            }
            if (!backoff.pause(time, key, deadline)) {
                return null;
            }
        }
    }

    /** @param run the kept lease whose run this hold goes on, or null: a run begins with it */
    private OptimisticAcquisition optimistic(Lease lease, String holder, LockRequest request, long sentAt, KeptLeases.Kept run,
                                             ThreadScope scope, KeyTurns.Turn turn, LockMeter meter) {
        OptimisticAcquisition acquisition = new OptimisticAcquisition(lease, holder, request.lease(), request.lockDelay(),
                sentAt, repository, time, scope, turn, meter);
        acquisition.handsOverDuringAHold = seededBug == ExclusiveSeededBug.HAND_OVER_DURING_A_MINIMUM_HOLD;
        acquisition.releases = releases;
        // an exclusive lock's or a permit's; a read/write lock's rows are never kept (its reader slots have a keep of their own)
        if (keptLeases.keeping() && request.type() == LockType.EXCLUSIVE) {
            acquisition.keptBy(keptLeases, run != null ? run.runSince() : sentAt,
                    run != null ? run.runNanos() : HandOvers.runBound(time, HandOvers.LEASE_RUN_NANOS));
        }
        watch(acquisition);
        return acquisition;
    }

    // A manager closed while the lease was being taken cannot renew it: give the lease back at once.
    private void watch(OptimisticAcquisition acquisition) {
        if (!closing.getAsBoolean() && watchdog.watch(acquisition)) {
            return;
        }
        try {
            repository.releaseLease(acquisition.lease());
        } catch (LockException releaseFailure) {
            // the lease expires on its own
        }
        throw new LockManagerClosedException("This LockManager was closed while '" + acquisition.key + "' was being acquired");
    }
}
