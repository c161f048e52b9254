package io.locked.bench;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The critical section of one key. Counts entries that found as many holders inside as it admits
 * (violations: one for a lock, the permits for permits) and measures hand-off: from the moment a holder leaves to release the lock until a thread that
 * was already waiting is inside.
 */
final class Section {
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicLong violations = new AtomicLong();
    private final int admits;
    private volatile long leftAt;

    /** @param admits how many holders may be inside at once */
    Section(int admits) {
        this.admits = admits;
    }

    /**
     * @param startedAt when the entering thread began to acquire (System.nanoTime)
     * @param handOffs  where the entering thread records its hand-off if it waited for a release;
     *                  null while warming up
     */
    void enter(long startedAt, Samples handOffs) {
        long now = System.nanoTime();
        if (inside.incrementAndGet() > admits) {
            violations.incrementAndGet();
        }
        long left = leftAt;
        if (handOffs != null && left != 0 && startedAt - left < 0) {
            handOffs.add(now - left);
        }
    }

    void exit() {
        leftAt = System.nanoTime();
        inside.decrementAndGet();
    }

    long violations() {
        return violations.get();
    }
}
