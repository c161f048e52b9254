package io.locked.spi;

/**
 * An open transaction holding a key's row lock. Not thread-safe: the core calls it from one thread
 * at a time.
 */
public interface PessimisticHold {

    /** @return the fencing token drawn inside the transaction */
    long token();

    /**
     * Ends the transaction (commit), which frees the row lock, and gives the connection back clean.
     *
     * @return true if the transaction was still ours to commit; false if the database had already
     *         ended it (connection lost), in which case the lock may have been taken meanwhile
     */
    boolean release();
}
