package io.locked.spi;

import java.time.Duration;

/**
 * One row per lock key. Implementations must be thread-safe.
 */
public interface LockRepository {

    /**
     * Locks the key's row in a transaction of its own (creating the row if missing) and draws a new
     * fencing token in that transaction. Returns empty-handed (null) when the row stays locked by
     * another transaction for {@code dbWait}, or when the key is held under a live optimistic lease.
     *
     * @param key    the lock key
     * @param owner  the acquisition's id, for diagnostics
     * @param holder who holds it (host, pid, thread), for diagnostics
     * @param dbWait how long to queue inside the database; zero means do not wait
     * @return the open hold, or null if busy
     */
    PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait);

    /**
     * Takes the key's lease if the row is free or its lease has expired on the database's clock
     * (creating the row if missing): one compare-and-set on the row's version.
     *
     * @param key    the lock key
     * @param owner  the acquisition's id
     * @param holder who holds it, for diagnostics
     * @param lease  how long the lease lasts, from the database's now
     * @param dbWait the longest the take may wait inside the database for a row lock (a pessimistic
     *               holder's); zero means do not wait. Past it the take answers null (busy).
     * @return the lease taken, or null if someone else holds a live lease or the row stayed locked
     */
    Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait);

    /**
     * Extends a lease that this owner still holds at this version and that has not expired.
     *
     * @param lease    the lease as last confirmed
     * @param duration the new lease length, from the database's now
     * @return the renewed lease (new version), or null if it was lost
     */
    Lease renewLease(Lease lease, Duration duration);

    /**
     * Passes a live lease straight to another acquisition of the same JVM: one owner- and
     * version-checked write that sets the new owner, draws a new token and starts a new lease, as a
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
     * Frees the row if this owner still holds it. The row of another owner is never touched.
     *
     * @param lease the lease as last confirmed
     * @return true if the lease was still live and is now free; false if it was lost (taken over,
     *         or expired before this call; an expired row still owned by this owner is freed too)
     */
    boolean releaseLease(Lease lease);

    /**
     * Deletes free rows not acquired for at least {@code idleFor}. Tokens of keys whose row is
     * deleted and created again keep increasing.
     *
     * @param idleFor how long a free row must have been idle
     * @return how many rows were deleted
     */
    int deleteIdleRows(Duration idleFor);
}
