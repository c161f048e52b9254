package io.locked.internal.base;



/**
 * The metrics of one lock name and mode. The core calls it at most once per step of an acquisition:
 * one of {@link #acquired}, {@link #notAcquired}, {@link #noConnection} or {@link #failed}; after {@code acquired}, at most
 * one {@link #lost} and at most one {@link #holdEnded}, the loss (if any) first. A reentrant entry
 * is not an acquisition and reports nothing.
 */
public interface LockMeter {

    /** Reports nothing. */
    LockMeter NONE = new LockMeter() {
    };

    /** How a hold ended. */
    enum HoldOutcome {
        /** Released while still held. */
        RELEASED,
        /** Lost while held or found lost at release; {@link #lost} was reported first. */
        LOST,
        /** The store failed during the release: whether the row was freed is not known. */
        FAILED
    }

    /** What the store was asked to do when it failed. */
    enum StoreOperation {
        /** Taking the lock. */
        ACQUIRE,
        /** Renewing an optimistic lease. */
        RENEW,
        /** Releasing the lock. */
        RELEASE
    }

    /**
     * @param waitedNanos from the request to the lock, the wait in this JVM's queue included
     * @param token       the fencing token of the hold (for a reader that joined its JVM's group, the group's)
     */
    default void acquired(long waitedNanos, long token) {
    }

    /** @param waitedNanos the wait that ran out */
    default void notAcquired(long waitedNanos) {
    }

    /**
     * The store had no connection for the acquisition within its connection wait: a pool too small
     * for the load, not a key held by another.
     *
     * @param waitedNanos until the acquisition ended
     */
    default void noConnection(long waitedNanos) {
    }

    /**
     * @param waitedNanos until the acquisition ended with an exception
     * @param cause       that exception: the store down, the thread interrupted, the manager closed
     */
    default void failed(long waitedNanos, Throwable cause) {
    }

    /** @param operation what the store was asked to do */
    default void storeFailed(StoreOperation operation) {
    }

    /** The held lock was lost: reported once per acquisition, when the loss is first known. */
    default void lost() {
    }

    /**
     * @param heldNanos from the acquisition to the end of its release
     * @param outcome   how the hold ended
     */
    default void holdEnded(long heldNanos, HoldOutcome outcome) {
    }
}
