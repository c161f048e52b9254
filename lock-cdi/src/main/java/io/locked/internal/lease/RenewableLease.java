package io.locked.internal.lease;

import io.locked.spi.Lease;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/** A held lease as {@link LeaseRenewals} sees it: what to renew, and where its answer goes. */
public interface RenewableLease {

    /** @return the lease length asked of the store; leases of one length, counted and stored, share a batch */
    Duration storedLease();

    /** @return the holder's lease length: a due renewal waits for its batch a small part of it */
    Duration leaseLength();

    /** @return set while a renewal of this lease is gathered or out: a tick that finds it set is skipped */
    AtomicBoolean renewalUnderway();

    /**
     * @return whether the last batch this lease was in failed: it is then renewed alone, as a store
     *         without batches would, until a renewal succeeds (so that one row that hangs a batch's
     *         statement costs only its own lease)
     */
    boolean renewsAlone();

    /** @return the lease to renew now, or null if there is none (released, lost, or ran out: then marked lost) */
    Lease leaseToRenew();

    /**
     * The store answered for this lease.
     *
     * @param renewed     the renewed lease, or null if the renewal found it expired or taken over
     * @param sentAtNanos when the renewal was sent, on this JVM's monotonic clock
     */
    void renewed(Lease renewed, long sentAtNanos);

    /**
     * The store failed: the lease is kept until it runs out, and the next tick tries again.
     *
     * @param failure  the store's failure
     * @param inBatch  whether the failed call was a batch: the next renewal then goes alone
     */
    void renewalFailed(RuntimeException failure, boolean inBatch);

    /** Renews once, alone, on the calling thread; or marks the lease lost. */
    void renew();

    /** @param schedule the watchdog's ticks for this lease, stopped when the lease ends */
    void startRenewal(RenewalSchedule schedule);
}
