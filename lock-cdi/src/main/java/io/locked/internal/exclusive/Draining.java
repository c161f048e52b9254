package io.locked.internal.exclusive;

import io.locked.internal.base.TimeSource;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The acquisitions of one manager that are still held, so that closing the manager can let them end
 * first: a holder that finishes and releases during a shutdown frees its key at once, where one cut
 * off by the exit would keep it until its lease ran out (optimistic) or until the database noticed
 * the dead session (pessimistic). The close parks on the manager's {@link TimeSource}, so the simulation
 * runs a drain in virtual time.
 */
public final class Draining {
    private final Set<Acquisition> held = ConcurrentHashMap.newKeySet();
    private final Set<Thread> waiting = ConcurrentHashMap.newKeySet();
    private final TimeSource time;

    /** @param time where the close waits */
    public Draining(TimeSource time) {
        this.time = time;
    }

    /** From its first handle until its last handle closed. */
    public void track(Acquisition acquisition) {
        held.add(acquisition);
        acquisition.whenFinished(() -> finished(acquisition));
    }

    private void finished(Acquisition acquisition) {
        held.remove(acquisition);
        waiting.forEach(LockSupport::unpark);
    }

    /** @return how many acquisitions are held now */
    public int held() {
        return held.size();
    }

    /**
     * Waits until every tracked acquisition has ended, or the bound has passed.
     *
     * @return how many are still held
     */
    public int awaitEnds(Duration bound) {
        long deadline = time.nanoTime() + bound.toNanos();
        Thread me = Thread.currentThread();
        waiting.add(me);
        try {
            // looked at after joining the waiters: an end from now on unparks this thread
            while (!held.isEmpty()) {
                long left = deadline - time.nanoTime();
                if (left <= 0 || me.isInterrupted()) {
                    break;
                }
                time.parkNanos(this, left);
            }
        } finally {
            waiting.remove(me);
        }
        return held.size();
    }
}
