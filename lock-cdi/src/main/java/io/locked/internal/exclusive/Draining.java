package io.locked.internal.exclusive;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The acquisitions of one manager that are still held, so that closing the manager can let them end
 * first: a holder that finishes and releases during a shutdown frees its key at once, where one cut
 * off by the exit would keep it until its lease ran out (optimistic) or until the database noticed
 * the dead session (pessimistic).
 */
public final class Draining {
    private final Set<Acquisition> held = ConcurrentHashMap.newKeySet();

    /** From its first handle until its last handle closed. */
    public void track(Acquisition acquisition) {
        held.add(acquisition);
        acquisition.whenFinished(() -> finished(acquisition));
    }

    private void finished(Acquisition acquisition) {
        held.remove(acquisition);
        synchronized (this) {
            notifyAll();
        }
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
        long deadline = System.nanoTime() + bound.toNanos();
        synchronized (this) {
            while (!held.isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                try {
                    wait(Math.max(1, left / 1_000_000), 0);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        return held.size();
    }
}
