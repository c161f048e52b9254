package io.locked.bench;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * The wait of every hand-written and peer optimistic case: a refused take is tried again after a
 * pause that doubles from 0.5 ms up to 50 ms, with jitter. One policy for all of them, so that a
 * comparison between them measures the lock, not how patiently each one waits.
 */
final class Backoff {
    private static final long FIRST_PAUSE_NANOS = 500_000;
    private static final long LONGEST_PAUSE_NANOS = 50_000_000;

    private Backoff() {
    }

    /** One try at a lock: true if it was taken, false if it was busy (not an error). */
    @FunctionalInterface
    interface Attempt<E extends Exception> {
        boolean take() throws E;
    }

    /** Tries until the attempt takes the lock, pausing after each refusal. */
    static <E extends Exception> void untilTaken(Attempt<E> attempt) throws E {
        long ceiling = FIRST_PAUSE_NANOS;
        while (!attempt.take()) {
            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1));
            ceiling = Math.min(LONGEST_PAUSE_NANOS, ceiling * 2);
        }
    }
}
