package io.locked.internal.base;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Threads that wait, parked on a lock manager's {@link TimeSource}, until something is done: the ends of the
 * holds a close drains, the releases a close lets finish. Parked on that time, not on a monitor, so that the
 * simulation runs the wait in virtual time while what it waits for parks in the store.
 */
public final class Waiters {
    private final Set<Thread> waiting = ConcurrentHashMap.newKeySet();
    private final TimeSource time;

    /** @param time where the waiters park */
    public Waiters(TimeSource time) {
        this.time = time;
    }

    /** Something a waiter may wait for has changed: each looks again. */
    public void changed() {
        waiting.forEach(LockSupport::unpark);
    }

    /**
     * Waits until {@code done} holds, the deadline on the time given has passed, or the thread is interrupted
     * (its flag stays set).
     */
    public void awaitUntil(BooleanSupplier done, long deadline) {
        Thread me = Thread.currentThread();
        waiting.add(me);
        try {
            // looked at after joining the waiters: a change from now on unparks this thread
            while (!done.getAsBoolean()) {
                long left = deadline - time.nanoTime();
                if (left <= 0 || me.isInterrupted()) {
                    return;
                }
                time.parkNanos(this, left);
            }
        } finally {
            waiting.remove(me);
        }
    }
}
