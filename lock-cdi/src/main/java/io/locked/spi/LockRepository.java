package io.locked.spi;

import io.locked.api.LockMode;
import io.locked.api.LockType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One row per lock key. Implementations must be thread-safe.
 *
 * <p><b>Bounded calls.</b> No call may hang: each one bounds its wait for a connection and its
 * statements (a query or network timeout) by the wait it is given, or for the others by the lease or
 * a short fixed time. A call that ran out of that bound on a statement fails with a
 * {@link io.locked.api.LockStoreUnavailableException}. An acquisition that found no free connection
 * in time throws {@link NoConnectionException}, never null: null means "held by another", which the
 * manager asks again about until the caller's wait ends, while a missing connection ends the
 * acquisition at once. An acquisition may wait for a connection longer than the wait it is given
 * (a store's own connection wait), but for a row lock within that wait only.
 *
 * <p><b>Owner and token.</b> A lease is identified by its owner and its token, never by the row's
 * version: renewal, hand-over and release are guarded by those two. The core may send a renewal and
 * the release of the same lease at once, and a renewal's reply may be lost after the database
 * applied it; with a version guard either would make a later write of the same holder fail.
 */
public interface LockRepository extends LockInspection {

    /**
     * Why this store cannot give mutual exclusion in a mode, as it is set up (for instance pessimistic
     * row locks on a database cluster whose nodes each keep their own row locks). The manager refuses
     * such acquisitions, and a deployment whose {@code @Locked} methods use the mode fails to start.
     *
     * @param mode a lock mode
     * @return the reason and the fix, or empty when the mode is safe here
     */
    default Optional<String> refusal(LockMode mode) {
        return Optional.empty();
    }

    /**
     * Why this store cannot give a kind of lock in a mode: {@link #refusal(LockMode)} for the mode, and
     * for {@code PESSIMISTIC} {@link LockType#READ} and {@link LockType#WRITE} also
     * {@link #noSharedRowLocks()}, since a read/write lock's pessimistic readers share a row lock
     * ({@link PessimisticHold#lockAnotherRow}).
     *
     * @param mode a lock mode
     * @param type what the lock admits beside it
     * @return the reason and the fix, or empty when the lock is safe here
     */
    default Optional<String> refusal(LockMode mode, LockType type) {
        Optional<String> modeRefused = refusal(mode);
        if (modeRefused.isPresent() || mode != LockMode.PESSIMISTIC || type == LockType.EXCLUSIVE) {
            return modeRefused;
        }
        return noSharedRowLocks();
    }

    /**
     * Why this store has no shared row locks ({@link PessimisticHold#lockAnotherRow}), which
     * {@code PESSIMISTIC} read/write locks need; a store that has them overrides this.
     *
     * @return the reason and the fix, or empty where the store has them
     */
    default Optional<String> noSharedRowLocks() {
        return Optional.of(getClass().getName() + " has no shared row locks, which PESSIMISTIC readers and writers need:"
                + " use mode OPTIMISTIC for this read/write lock");
    }

    /**
     * Makes sure the key's row exists, committed, holding nothing: for a row that transactions lock
     * beside their own ({@link PessimisticHold#lockAnotherRow}), which do not create it. Bounded by a short
     * fixed time.
     *
     * @param key the row's key
     * @return false when another transaction kept the row's place busy for that time (on MariaDB and
     *         MySQL, a locking read of the missing row, until that transaction ends); true otherwise
     * @throws io.locked.api.LockStoreUnavailableException if the store failed
     * @throws UnsupportedOperationException if this store cannot lock a second row
     */
    default boolean createRow(String key) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot create a row on its own");
    }

    /**
     * Reads the lock table once, for a readiness check: returns if the store answers and its lock
     * table is there. Bounded by {@code timeout}, for the connection and the statement alike.
     *
     * @param timeout how long the check may take
     * @throws io.locked.api.LockStoreUnavailableException if the store does not answer, or has no lock table
     * @throws UnsupportedOperationException if this store cannot be checked
     */
    default void checkReachable(Duration timeout) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot be checked");
    }

    /**
     * Locks the key's row in a transaction of its own (creating the row if missing) and draws a new
     * fencing token in that transaction. Returns empty-handed (null) when the row stays locked by
     * another transaction for {@code dbWait}, or when the key is held under a live optimistic lease.
     *
     * @param key    the lock key
     * @param owner  the acquisition's id, for diagnostics
     * @param holder who holds it (host, pid, thread), for diagnostics
     * @param dbWait how long to queue inside the database, the wait for a connection included; zero
     *               means do not wait
     * @return the open hold, or null if busy
     * @throws NoConnectionException if no connection was free within the store's connection bound
     */
    PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait);

    /**
     * Whether this store's pessimistic holds can pass their row lock to the next holder of the same JVM
     * ({@link PessimisticHold#handOver}): the core then lets one thread of a key go to the database at a
     * time, and the next waits in the JVM for the row lock to be passed to it.
     *
     * @return false unless the holds can be passed on (some holds may still refuse, and are released)
     */
    default boolean handsOverPessimisticHolds() {
        return false;
    }

    /**
     * Takes the key's lease if the row is free or its lease has expired on the database's clock
     * (creating the row if missing): one compare-and-set on the row's version. A row whose live lease
     * is already this owner's (an earlier take of the same acquisition, whose answer was lost) is
     * taken again, with a new token. The lease starts when the row lock was granted.
     *
     * @param key    the lock key
     * @param owner  the acquisition's id
     * @param holder who holds it, for diagnostics
     * @param lease  how long the lease lasts, from the database's now
     * @param dbWait the longest the take may wait inside the database for a row lock (a pessimistic
     *               holder's), and for a connection; zero means do not wait for a row lock. Past it
     *               the take answers null (busy).
     * @return the lease taken, or null if someone else holds a live lease or the row stayed locked
     * @throws NoConnectionException if no connection was free within the store's connection bound
     */
    Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait);

    /**
     * Extends a lease that this owner still holds under this token and that has not expired, whatever
     * the row's version: a renewal whose reply was lost (applied, but its caller saw a failure) must
     * not make the next one fail. "Not expired" is judged on the database's clock read after the row's
     * lock was granted, so a lease that ran out while the renewal waited for the row is lost. Never
     * sets an earlier end than the row has: a renewal that lands after a release with a minimum hold
     * ({@link #releaseLease(Lease, Duration)}) leaves the hold whole. Bounded by a part of
     * {@code duration}: a renewal that takes longer is of no use to the holder.
     *
     * @param lease    the lease as last confirmed
     * @param duration the new lease length, from the database's now
     * @return the renewed lease, or null if it was lost
     */
    Lease renewLease(Lease lease, Duration duration);

    /**
     * How many leases {@link #renewLeases} renews in one call, at most. The watchdog gathers due
     * renewals of one lease length into batches of up to this many; at 1 (the default) it renews
     * each lease alone, at once, on a call of its own.
     *
     * @return the largest batch, at least 1
     */
    default int renewalBatchSize() {
        return 1;
    }

    /**
     * Renews several leases of one length, each as {@link #renewLease} would: extended only if this
     * owner still holds it under this token and it has not expired, on the database's clock. A lease
     * that was lost is reported lost alone; the others are renewed all the same. Bounded as
     * {@link #renewLease}. The default renews them one by one.
     *
     * @param leases   up to {@link #renewalBatchSize()} leases as last confirmed, of distinct keys
     * @param duration the new lease length of each, from the database's now
     * @return a list as long as {@code leases}, in their order: the renewed lease, or null where it
     *         was lost
     * @throws io.locked.api.LockStoreUnavailableException if the store failed: then none, some or all
     *                                                     of the leases were renewed
     */
    default List<Lease> renewLeases(List<Lease> leases, Duration duration) {
        List<Lease> renewed = new ArrayList<>(leases.size());
        for (Lease lease : leases) {
            renewed.add(renewLease(lease, duration));
        }
        return renewed;
    }

    /**
     * Passes a live lease straight to another acquisition of the same JVM: one owner- and
     * token-checked write that sets the new owner, draws a new token and starts a new lease, as a
     * release followed by a take would, but without the moment in between where the row is free.
     *
     * @param lease    the lease as last confirmed, held by the releasing acquisition
     * @param newOwner the receiving acquisition's id
     * @param holder   who receives it, for diagnostics
     * @param duration the new lease length, from the database's now
     * @return the receiver's lease (new owner, token and version), or null if the given lease was no
     *         longer live (expired or taken over): nothing was written, and the caller treats its
     *         own hold as lost
     */
    Lease handOverLease(Lease lease, String newOwner, String holder, Duration duration);

    /**
     * Frees the row if this owner still holds it under this token. The row of another owner is never
     * touched.
     *
     * @param lease the lease as last confirmed
     * @return true if the lease was still live and is now free; false if it was lost (taken over,
     *         or expired before this call; an expired row still owned by this owner is freed too)
     */
    boolean releaseLease(Lease lease);

    /**
     * Frees the lease as {@link #releaseLease(Lease)} does, except that the key stays taken until
     * {@code holdAtLeast} after the lease was taken, on the database's clock: the row keeps a lease
     * that ends then (at once if that time has passed), which no renewal shortens (one still on its way
     * extends it only to that renewal's own end, if later) and a forced release can end. For jobs that
     * must run at most once per period, whoever triggers them.
     *
     * @param lease       the lease as last confirmed
     * @param holdAtLeast how long after the take the key stays taken, positive
     * @return as {@link #releaseLease(Lease)}: true if the lease was still live
     * @throws UnsupportedOperationException if this store cannot keep a key taken after its release
     */
    default boolean releaseLease(Lease lease, Duration holdAtLeast) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot keep a key taken after its release"
                + " (holdAtLeast)");
    }

    /**
     * Deletes free rows not acquired for at least {@code idleFor}. Tokens of keys whose row is
     * deleted and created again keep increasing.
     *
     * @param idleFor how long a free row must have been idle
     * @return how many rows were deleted
     */
    int deleteIdleRows(Duration idleFor);
}
