package io.locked.internal;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Exponential backoff with jitter: the n-th pause is uniform in [c/2, c] with c = min(cap, first * 2^n).
 * The jitter spreads competing JVMs apart instead of waking them in step; the lower half keeps a
 * waiter from spinning on a busy row.
 */
final class Backoff {
    private final long capNanos;
    private long ceilingNanos;

    Backoff(long firstNanos, long capNanos) {
        this.capNanos = capNanos;
        this.ceilingNanos = firstNanos;
    }

    /** The longest pause of the standard backoff: a waiter polls at least this often. */
    static final long LONGEST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    static Backoff standard() {
        return new Backoff(TimeUnit.MICROSECONDS.toNanos(500), LONGEST_PAUSE_NANOS);
    }

    /** @return the next pause, never more than {@code remainingNanos} */
    long nextPauseNanos(long remainingNanos) {
        long pause = ThreadLocalRandom.current().nextLong(ceilingNanos / 2, ceilingNanos + 1);
        ceilingNanos = Math.min(capNanos, ceilingNanos * 2);
        return Math.max(0, Math.min(pause, remainingNanos));
    }
}
