package io.locked.spi;

/**
 * An open transaction holding a key's row lock. Thread-safe: the core may check it from its
 * watchdog while the holder's thread releases it; implementations serialise the two on the connection.
 */
public interface PessimisticHold {

    /** @return the fencing token drawn inside the transaction */
    long token();

    /**
     * Checks, without ending or changing the transaction, that the database still has it: one cheap
     * round trip on its connection, bounded by {@code timeout}. A session that died (idle timeout,
     * failover, a reset connection) has already lost its row lock.
     *
     * @param timeout the longest the check may take
     * @return false if the connection or the session is gone; true otherwise, also after release
     */
    boolean isAlive(java.time.Duration timeout);

    /**
     * Ends the transaction (commit), which frees the row lock, and gives the connection back clean.
     *
     * @return true if the transaction was still ours to commit; false if the database had already
     *         ended it (connection lost), in which case the lock may have been taken meanwhile. A
     *         second call does nothing and answers false.
     */
    boolean release();

    /**
     * Releases as {@link #release()} does, except that before the commit the row gets a lease in the
     * acquisition's name that ends {@code holdAtLeast} after the row was locked, on the database's
     * clock (at once if that time has passed): the key stays taken until then for every mode, as
     * {@link LockRepository#releaseLease(Lease, Duration)} keeps it.
     *
     * @param holdAtLeast how long after the acquisition the key stays taken, positive
     * @return as {@link #release()}
     * @throws UnsupportedOperationException if this store cannot keep a key taken after its release
     */
    default boolean release(java.time.Duration holdAtLeast) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot keep a key taken after its release"
                + " (holdAtLeast)");
    }
}
