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

    /** What {@link #lockAnotherRow} found. */
    enum AnotherRow {
        /** The row is locked in this hold's transaction, until the hold's release. */
        LOCKED,
        /** Another transaction holds a lock on the row that the asked one conflicts with. */
        BUSY,
        /**
         * The table has no such row: nothing was locked, but on MariaDB and MySQL the look may keep the
         * place of the missing row from others' inserts until the transaction ends. Or the look lost a race
         * to another transaction's write of the row, which ended this hold's transaction (MariaDB's snapshot
         * conflict, a deadlock): the hold then counts as lost. Either way: release the hold, create the row
         * ({@link LockRepository#createRow}) and try again.
         */
        ABSENT
    }

    /**
     * Locks one more row of the lock table in this hold's transaction, without waiting and without
     * writing it, until the hold's release: shared ({@code FOR SHARE}, {@code LOCK IN SHARE MODE},
     * {@code PESSIMISTIC_READ}), which other transactions may hold beside it, or exclusive ({@code FOR
     * UPDATE}), which no other lock of the row may be beside. A read/write lock's pessimistic readers
     * share one row of their key this way, and its writer locks that row exclusively. A busy row leaves
     * the transaction as it was: the hold stays usable and releases as before.
     *
     * @param key    the row's key
     * @param shared whether the lock is shared rather than exclusive
     * @return what was found
     * @throws io.locked.api.LockStoreUnavailableException if the statement failed
     * @throws UnsupportedOperationException if this store has no shared row locks
     *                                       ({@link LockRepository#refusal(io.locked.api.LockMode, io.locked.api.LockType)})
     */
    default AnotherRow lockAnotherRow(String key, boolean shared) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot lock a second row");
    }

    /**
     * Passes the row lock, with this hold's transaction and connection, to another acquisition of the same
     * JVM, without ending the transaction: one statement in it writes the new holder into the row and draws
     * the new holder's token, above this hold's, so that inspection shows the new holder and a fenced write
     * checks its token. Only where a crash of the JVM in the middle of a run of hand-overs cannot let the
     * next holder elsewhere draw a token below one handed out in the run: with clock tokens, whose release
     * rolls back, every token is at least the database clock's reading when it was drawn, and the next
     * holder's is the clock's reading after the transaction ended.
     *
     * <p>After a hand-over this hold is released: its {@link #release()} does nothing and answers false; the
     * returned hold is the new holder's, and ends the transaction at its own release.
     *
     * @param owner  the new holder's acquisition id
     * @param holder the new holder's description, as the row shows it
     * @return the new holder's hold; null where this hold cannot be passed on (its release must commit, it
     *         locked another row ({@link #lockAnotherRow}), the store cannot, or the statement failed: then
     *         this hold is as it was, or counts as lost, and its release says which)
     */
    default PessimisticHold handOver(String owner, String holder) {
        return null;
    }

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
