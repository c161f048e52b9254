package io.locked.api;

/**
 * A held lock. Close it to release the lock (try-with-resources). A handle belongs to one
 * acquisition, not to a thread: it may be closed from any thread.
 */
public interface LockHandle extends AutoCloseable {

    /** @return the key this handle holds */
    String key();

    /** @return the mode the lock is held in */
    LockMode mode();

    /**
     * The fencing token of this acquisition: strictly greater than the token of every earlier
     * acquisition of the same key, in either mode, also after idle rows were cleaned up. Pass it to
     * the resource you protect so that it can refuse writes from a holder that lost the lock.
     * Nested (reentrant) handles share the token of the outermost acquisition.
     *
     * @return the fencing token
     */
    long token();

    /**
     * Whether this acquisition still holds the lock as far as this JVM can know. An optimistic
     * lock turns invalid when a renewal fails or its lease ran out before the renewal confirmed
     * it; a pessimistic lock turns invalid when its transaction could not be kept. Once false it
     * stays false.
     *
     * @return true while the lock is believed held
     */
    boolean isValid();

    /**
     * Releases this hold. A nested hold only decrements the reentrancy count; the outermost
     * releases the row. Closing twice is a no-op.
     *
     * @throws LockLostException if the lock was lost while held (the lease ran out or was taken
     *                           over); the row of another holder is never touched
     * @throws LockStoreUnavailableException if the database could not be reached to release; a
     *                           pessimistic lock is then freed by the database, an optimistic lease
     *                           expires
     */
    @Override
    void close();
}
