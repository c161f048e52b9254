package io.locked.internal.exclusive;

import io.locked.internal.base.LockLog;
import io.locked.api.LockException;
import io.locked.api.LockLostException;
import io.locked.api.LockMode;
import io.locked.internal.base.LockMeter;
import io.locked.internal.base.TimeSource;
import io.locked.internal.lease.RenewableLease;
import io.locked.internal.lease.RenewalSchedule;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Holds the key's lease. Renewed by the {@link io.locked.internal.lease.LeaseWatchdog}, alone or in a batch
 * ({@link io.locked.internal.lease.LeaseRenewals}); valid until the last confirmed renewal's lease runs out, measured from
 * when that renewal was <em>sent</em> on this JVM's monotonic clock. The database set the expiry no earlier than that, so this JVM never believes a
 * lease is live after the database has let it expire (whatever either wall clock says).
 *
 * <p>No lock is held across a store call: a renewal that hangs never delays the holder's release.
 * Renewal and release may then reach the store in either order, which is safe because the store
 * guards both by owner and token, not by the row's version, and a renewal never shortens a row's
 * lease: a renewal that lands after a plain release finds the row no longer this owner's and changes
 * nothing; one that lands after a release that left a minimum hold finds the row still this owner's,
 * and keeps the hold's later end (it may lengthen it to a lease from then, never cut it); and a renewal
 * whose reply was lost (applied, but seen by us as a failure) does not make the next one fail.
 */
public final class OptimisticAcquisition extends Acquisition implements RenewableLease {
    private final LockRepository repository;
    private final TimeSource time;
    final Duration leaseLength;
    /**
     * The lease the store is asked for: this holder's lease plus the lock-delay. The holder counts
     * on {@link #leaseLength} only; a holder that stops renewing leaves the key taken for the delay
     * past that, before another may take it.
     */
    private final Duration storedLease;
    private Lease lease;
    private long validUntilNanos;
    private boolean lost;
    private String lostReason;
    private RenewalSchedule renewal;
    private final AtomicBoolean renewalUnderway = new AtomicBoolean();
    /** Set when a batch this lease was in failed; see {@link RenewableLease#renewsAlone()}. */
    private volatile boolean renewsAlone;
    /** {@link ExclusiveSeededBug#HAND_OVER_DURING_A_MINIMUM_HOLD}, for the simulation's negative control only. */
    boolean handsOverDuringAHold;
    /** Sends a release the store could not be reached for again (set by the manager's {@link LeaseTakes}). */
    ReleaseRetries releases = ReleaseRetries.NONE;
    /** Where a release with nobody here waiting keeps the lease for the key's next take; null: it is released. */
    private KeptLeases keptLeases;
    private long runSince;
    private long runNanos;

    public OptimisticAcquisition(Lease lease, String holder, Duration leaseLength, Duration lockDelay, long sentAtNanos,
                          LockRepository repository, TimeSource time, ThreadScope scope, KeyTurns.Turn turn, LockMeter meter) {
        super(lease.key(), lease.owner(), holder, lease.token(), scope, turn, meter, time);
        this.lease = lease;
        this.leaseLength = leaseLength;
        this.storedLease = leaseLength.plus(lockDelay);
        this.validUntilNanos = sentAtNanos + leaseLength.toNanos();
        this.repository = repository;
        this.time = time;
    }

    /**
     * @param runSince when the run of kept leases this hold belongs to began
     * @param runNanos how long that run may last
     */
    void keptBy(KeptLeases keptLeases, long runSince, long runNanos) {
        this.keptLeases = keptLeases;
        this.runSince = runSince;
        this.runNanos = runNanos;
    }

    @Override
    LockMode mode() {
        return LockMode.OPTIMISTIC;
    }

    @Override
    public synchronized boolean isValid() {
        return !lost && time.nanoTime() - validUntilNanos < 0;
    }

    public synchronized Lease lease() {
        return lease;
    }

    @Override
    public synchronized void startRenewal(RenewalSchedule schedule) {
        this.renewal = schedule;
    }

    @Override
    public Duration storedLease() {
        return storedLease;
    }

    @Override
    public Duration leaseLength() {
        return leaseLength;
    }

    @Override
    public AtomicBoolean renewalUnderway() {
        return renewalUnderway;
    }

    @Override
    public boolean renewsAlone() {
        return renewsAlone;
    }

    @Override
    public void renew() {
        Lease current = leaseToRenew();
        if (current == null) {
            return;
        }
        long sentAt = time.nanoTime();
        Lease renewed;
        try {
            renewed = repository.renewLease(current, storedLease);
        } catch (RuntimeException storeDown) {
            renewalFailed(storeDown, false);
            return;
        }
        renewed(renewed, sentAt);
    }

    @Override
    public synchronized Lease leaseToRenew() {
        if (lost || renewal == null) {
            return null;
        }
        if (time.nanoTime() - validUntilNanos >= 0) {
            markLost("its lease of " + leaseLength + " ran out before a renewal confirmed it");
            return null;
        }
        return lease;
    }

    @Override
    public void renewalFailed(RuntimeException failure, boolean inBatch) {
        // keep the lease until it runs out; the next tick tries again
        renewsAlone = inBatch || renewsAlone;
        LockLog.storeFailed(key, holder, "renewing the lease of", failure);
        storeFailed(LockMeter.StoreOperation.RENEW);
        long leftNanos;
        synchronized (this) {
            // released meanwhile, or known lost: the release or the loss is what the holder hears of
            leftNanos = lost || renewal == null ? 0 : validUntilNanos - time.nanoTime();
        }
        if (leftNanos > 0) {
            warnOfFailedRenewal(Duration.ofNanos(leftNanos), failure);
        }
    }

    @Override
    public synchronized void renewed(Lease renewed, long sentAtNanos) {
        if (renewal == null) {
            // released (or handed over) while this renewal was out: its answer is about a row no longer ours
            return;
        }
        if (renewed == null) {
            long countedLiveNanos = validUntilNanos - time.nanoTime();
            markLost(countedLiveNanos <= 0 ? "a renewal found it expired or taken over"
                    : "a renewal found it expired or taken over while this JVM counted it live for "
                    + Duration.ofNanos(countedLiveNanos).toMillis() + " ms more: an operator's forced release, or"
                    + " the database clock stepped forward");
        } else if (!lost) {
            lease = renewed;
            validUntilNanos = sentAtNanos + leaseLength.toNanos();
            renewsAlone = false;
        }
    }

    @Override
    synchronized void lostAtReentry() {
        if (!lost) {
            markLost("its lease of " + leaseLength + " ran out before a renewal confirmed it");
        }
    }

    private void markLost(String reason) {
        lost = true;
        lostReason = reason;
        if (renewal != null) {
            renewal.stop();
        }
        lost(reason);
    }

    @Override
    void releaseRow() {
        Lease last;
        String reason;
        synchronized (this) {
            if (renewal != null) {
                renewal.stop();
                renewal = null;
            }
            last = lease;
            if (!lost && time.nanoTime() - validUntilNanos >= 0) {
                // the database may still show it live, but this holder could not know it was: the
                // work done since may have overlapped another holder
                markLost("its lease of " + leaseLength + " ran out before a renewal confirmed it");
            }
            reason = lost ? lostReason : null;
        }
        // a minimum hold keeps the key from this JVM's next thread too: no hand-over while it lasts
        boolean keepTaken = holdsPastRelease();
        if (reason == null && (!keepTaken || handsOverDuringAHold) && handOverToSuccessor(last)) {
            synchronized (this) {
                validUntilNanos = time.nanoTime();
            }
            return;
        }
        if (reason != null) {
            throw lostAtRelease(last, reason, keepTaken);
        }
        // kept for the next take here, which passes it on in one statement; a minimum hold is released as such
        if (!keepTaken && keptLeases != null && keptLeases.keep(last, runSince, runNanos, leftNanos(), this)) {
            synchronized (this) {
                validUntilNanos = time.nanoTime();
            }
            return;
        }
        if (!releases.release(repository, last, keepTaken ? holdAtLeast() : null, leftNanos(), holder)) {
            synchronized (this) {
                lost = true;
            }
            throw new LockLostException(key, token, "at release the lease had expired or was taken over");
        }
        synchronized (this) {
            validUntilNanos = time.nanoTime();
        }
    }

    private synchronized long leftNanos() {
        return validUntilNanos - time.nanoTime();
    }

    /**
     * The loss is already known, so that is what the holder is told. The release only frees the row
     * early where the lease may still stand in the database, and leaves the minimum hold there as any
     * release does: a lease lost on this JVM's own count (its renewals unconfirmed) may still be this
     * holder's in the database, and the job it ran must not run again within its period. A store that
     * cannot be reached does not change the answer (the lease runs out there on its own), and its failure
     * rides along.
     */
    private LockLostException lostAtRelease(Lease last, String reason, boolean keepTaken) {
        LockLostException lostException = new LockLostException(key, token, reason);
        try {
            if (keepTaken) {
                repository.releaseLease(last, holdAtLeast());
            } else {
                repository.releaseLease(last);
            }
        } catch (RuntimeException releaseFailure) {
            lostException.addSuppressed(releaseFailure);
        }
        return lostException;
    }

    /**
     * Passes the live lease to the next thread of this JVM that waits for the key, if it wants one
     * like it: one statement instead of this release and its take.
     *
     * @return true if handed over; false if there was nobody to hand it to, or it was no longer live
     *         (then the release that follows finds out and reports the loss)
     */
    private boolean handOverToSuccessor(Lease last) {
        HandOvers.Wish next = turn.reserveSuccessor(storedLease);
        if (next == null) {
            return false;
        }
        long sentAt = time.nanoTime();
        Lease passed;
        try {
            passed = repository.handOverLease(last, next.owner(), next.holder(), next.length());
        } catch (LockException failed) {
            // the release that follows frees the row if it can; the successor then goes to the database
            return false;
        }
        if (passed == null) {
            return false;
        }
        turn.handedOver(new HandOvers.HandedLease(passed, sentAt));
        return true;
    }
}
