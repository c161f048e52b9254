package io.locked.internal.readwrite;

import io.locked.api.LockHandle;
import io.locked.api.LockMode;
import io.locked.internal.exclusive.ModelHolds;
import io.locked.internal.exclusive.RowAccess;
import io.locked.internal.exclusive.ThreadScope;
import io.locked.spi.LockRowState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The table as one JVM's read/write lock sees it, in memory and deterministic, for model checking: each row
 * held by one hold at most. A take with a wait waits until the row is free (time stands still: only a release
 * ends that wait); a take without one gets the row only if it is free now. No thread re-enters a hold here.
 */
final class ModelRows implements RowAccess {
    /** The held rows, with their holds' tokens; guarded by this. */
    private final Map<String, Long> held = new HashMap<>();
    private long lastToken;
    private int looksAtTheSlots;
    /** A thread whose releases stay under way until a writer has looked at the slots; guarded by this. */
    private Thread releasesHeldUntilALook;

    @Override
    public synchronized LockHandle take(String rowKey, Duration wait) {
        while (held.containsKey(rowKey) && !wait.isZero()) {
            try {
                wait();
            } catch (InterruptedException unexpected) {
                throw new AssertionError(unexpected);
            }
        }
        if (held.containsKey(rowKey)) {
            return null;
        }
        long token = ++lastToken;
        held.put(rowKey, token);
        return ModelHolds.hold(rowKey, token, () -> free(rowKey));
    }

    private synchronized void free(String rowKey) {
        while (Thread.currentThread() == releasesHeldUntilALook && looksAtTheSlots == 0) {
            try {
                wait();
            } catch (InterruptedException unexpected) {
                throw new AssertionError(unexpected);
            }
        }
        if (held.remove(rowKey) == null) {
            throw new AssertionError("row " + rowKey + " released twice");
        }
        notifyAll();
    }

    @Override
    public synchronized LockRowState inspect(String rowKey) {
        Long token = held.get(rowKey);
        return new LockRowState(rowKey, token == null ? null : LockMode.OPTIMISTIC, token == null ? null : "model",
                token, null, null, null, null);
    }

    @Override
    public boolean createRow(String rowKey) {
        return true;
    }

    @Override
    public synchronized List<LockRowState> inspectAll(List<String> rowKeys) {
        looksAtTheSlots++;
        notifyAll();
        List<LockRowState> rows = new ArrayList<>();
        for (String rowKey : rowKeys) {
            if (held.containsKey(rowKey)) {
                rows.add(inspect(rowKey));
            }
        }
        return rows;
    }

    @Override
    public List<LockRowState> inspectLeases(List<String> rowKeys) {
        return inspectAll(rowKeys);
    }

    @Override
    public void joined(long token) {
    }

    @Override
    public LockHandle reenter(ThreadScope scope, String rowKey) {
        return null;
    }

    /**
     * The calling thread's releases of rows stay under way, the row still held, until a writer has looked at
     * the reader slots: a release that runs on this thread is surely one that writer's look meets.
     */
    synchronized void holdMyReleasesUntilALook() {
        releasesHeldUntilALook = Thread.currentThread();
    }

    /** Waits until a writer looked at the reader slots (its wait for the readers inside has begun). */
    synchronized void awaitALookAtTheSlots() {
        while (looksAtTheSlots == 0) {
            try {
                wait();
            } catch (InterruptedException unexpected) {
                throw new AssertionError(unexpected);
            }
        }
    }

    /** @return whether the row is held now */
    synchronized boolean holds(String rowKey) {
        return held.containsKey(rowKey);
    }

    /** @return the rows held now */
    synchronized List<String> heldRows() {
        return List.copyOf(held.keySet());
    }
}
