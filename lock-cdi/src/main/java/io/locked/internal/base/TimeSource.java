package io.locked.internal.base;

import java.time.Clock;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * Where the core reads time, sleeps and starts its long-lived threads, and draws the random spreads that keep JVMs apart. Deadlines use
 * the monotonic {@link #nanoTime()}; the wall clock only labels holders for diagnostics and never decides
 * who holds a lock. Tests replace it; the deterministic simulation draws the spreads from its seed too.
 */
public interface TimeSource {

    /** @return a monotonic reading in nanoseconds */
    long nanoTime();

    /** @return the client's wall clock (diagnostics only) */
    Clock wallClock();

    /**
     * @param nanos how long to sleep
     * @throws InterruptedException if interrupted
     */
    void sleepNanos(long nanos) throws InterruptedException;

    /**
     * Parks the calling thread for up to {@code nanos}, as {@link LockSupport#parkNanos(Object, long)} does: it
     * may return earlier, when unparked or spuriously. The simulation parks it in virtual time.
     *
     * @param blocker what the thread waits for
     * @param nanos   the longest it parks
     */
    default void parkNanos(Object blocker, long nanos) {
        LockSupport.parkNanos(blocker, nanos);
    }

    /**
     * Starts a thread of the core's own that lives long and waits through this source (a leadership campaign):
     * a daemon platform thread; in the simulation, one of its world's, in virtual time.
     *
     * @param name what the thread is called
     * @param body what it runs
     * @return the thread, started
     */
    default Thread startThread(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /**
     * @param bound how many choices, positive
     * @return a random choice below {@code bound}: where a search of slots starts, so that JVMs spread out
     */
    default int spread(int bound) {
        return ThreadLocalRandom.current().nextInt(bound);
    }

    /**
     * @param origin the least choice
     * @param bound  above the greatest choice, greater than {@code origin}
     * @return a random choice from {@code origin} to below {@code bound}: a back-off's jitter, so that JVMs spread out
     */
    default long spread(long origin, long bound) {
        return ThreadLocalRandom.current().nextLong(origin, bound);
    }

    /**
     * @param wallClock the wall clock to report
     * @return the real monotonic clock and sleep, with the given wall clock
     */
    static TimeSource system(Clock wallClock) {
        return new TimeSource() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public Clock wallClock() {
                return wallClock;
            }

            @Override
            public void sleepNanos(long nanos) throws InterruptedException {
                if (nanos > 0) {
                    Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
                }
            }
        };
    }
}
