package io.locked.internal.base;

import io.locked.api.LockInterruptedException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Exponential backoff with jitter: the n-th pause is uniform in [c/2, c] with c = min(cap, first * 2^n).
 * The jitter spreads competing JVMs apart instead of waking them in step; the lower half keeps a
 * waiter from spinning on a busy row.
 */
public final class Backoff {
    private final long capNanos;
    private long ceilingNanos;

    Backoff(long firstNanos, long capNanos) {
        this.capNanos = capNanos;
        this.ceilingNanos = firstNanos;
    }

    /** The longest pause of the standard backoff: a waiter polls at least this often. */
    public static final long LONGEST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /**
     * @param first the ceiling of the first pause
     * @param cap   the longest pause
     * @return a backoff whose pauses grow from the first to the cap
     */
    public static Backoff from(Duration first, Duration cap) {
        return new Backoff(first.toNanos(), Math.max(first.toNanos(), cap.toNanos()));
    }

    public static Backoff standard() {
        return new Backoff(TimeUnit.MICROSECONDS.toNanos(500), LONGEST_PAUSE_NANOS);
    }

    /**
     * Sleeps the next pause, cut to the deadline.
     *
     * @param time     the clock and sleep
     * @param key      the key waited for, for the interruption's message
     * @param deadline the end of the wait, on {@link TimeSource#nanoTime()}
     * @return false, without sleeping, when the wait is over
     * @throws LockInterruptedException if the thread was interrupted (its flag set again)
     */
    public boolean pause(TimeSource time, String key, long deadline) {
        long remaining = deadline - time.nanoTime();
        return remaining > 0 && sleep(time, key, deadline, nextPauseNanos(remaining, time));
    }

    /**
     * Sleeps that long, cut to the deadline.
     *
     * @return false, without sleeping, when the wait is over
     * @throws LockInterruptedException if the thread was interrupted (its flag set again)
     */
    public static boolean sleep(TimeSource time, String key, long deadline, long nanos) {
        long remaining = deadline - time.nanoTime();
        if (remaining <= 0) {
            return false;
        }
        try {
            time.sleepNanos(Math.min(nanos, remaining));
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(key, interrupted);
        }
        return true;
    }

    /**
     * @param time where the jitter is drawn
     * @return the next pause, never more than {@code remainingNanos}
     */
    public long nextPauseNanos(long remainingNanos, TimeSource time) {
        long pause = time.spread(ceilingNanos / 2, ceilingNanos + 1);
        ceilingNanos = Math.min(capNanos, ceilingNanos * 2);
        return Math.max(0, Math.min(pause, remainingNanos));
    }
}
