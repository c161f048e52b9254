package io.locked.internal;

import io.locked.api.LockMode;
import java.util.Map;

/**
 * One acquisition of a key: the unit that owns the lock. Counts its reentrant holds; the row is
 * released when the count drops to zero, from whichever thread closes the last handle.
 */
abstract class Acquisition {
    final String key;
    final String owner;
    final long token;
    private final Map<String, Acquisition> heldByThread;
    private int holds = 1;

    Acquisition(String key, String owner, long token, Map<String, Acquisition> heldByThread) {
        this.key = key;
        this.owner = owner;
        this.token = token;
        this.heldByThread = heldByThread;
    }

    abstract LockMode mode();

    abstract boolean isValid();

    /**
     * Frees the row.
     *
     * @throws io.locked.api.LockLostException if the lock turned out to be lost
     */
    abstract void releaseRow();

    synchronized void enterAgain() {
        holds++;
    }

    /** Ends one hold; the outermost releases the row. */
    void exit() {
        synchronized (this) {
            if (--holds > 0) {
                return;
            }
        }
        heldByThread.remove(key, this);
        releaseRow();
    }
}
