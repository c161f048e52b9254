package io.locked.internal.exclusive;

import io.locked.internal.base.TimeSource;
import io.locked.internal.base.Waiters;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The acquisitions of one manager that are still held, so that closing the manager can let them end
 * first: a holder that finishes and releases during a shutdown frees its key at once, where one cut
 * off by the exit would keep it until its lease ran out (optimistic) or until the database noticed
 * the dead session (pessimistic). The close parks on the manager's {@link TimeSource}, so the simulation
 * runs a drain in virtual time.
 */
public final class Draining {
    private final Set<Acquisition> held = ConcurrentHashMap.newKeySet();
    private final Waiters closing;
    private final TimeSource time;

    /** @param time where the close waits */
    public Draining(TimeSource time) {
        this.time = time;
        this.closing = new Waiters(time);
    }

    /** From its first handle until its last handle closed. */
    public void track(Acquisition acquisition) {
        held.add(acquisition);
        acquisition.whenFinished(() -> finished(acquisition));
    }

    private void finished(Acquisition acquisition) {
        held.remove(acquisition);
        closing.changed();
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
        closing.awaitUntil(held::isEmpty, time.nanoTime() + bound.toNanos());
        return held.size();
    }
}
