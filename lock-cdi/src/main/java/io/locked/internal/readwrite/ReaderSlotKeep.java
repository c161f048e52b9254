package io.locked.internal.readwrite;

import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import java.time.Duration;

/**
 * The moment an emptied {@code OPTIMISTIC} reader group stays held for its JVM's next reader, which joins
 * it without a statement, or next writer, which parks it if it gets the writer row meanwhile
 * ({@link LockManagerBuilder#keepReaderSlotsFor}). The moment begins when nobody else keeps the group
 * ({@link LocalReadWrite}), and a timer ends it; a reader that joins or a write that ends lets it begin
 * again. Once the lock manager closes, nothing is kept.
 *
 * <p>The methods that take a group run under the monitor of the group's key state, which guards the
 * group's keep fields; scheduling takes no lock of that state's.
 */
final class ReaderSlotKeep {

    private final KeepTimer timer;
    /** How long an empty group stays held; 0: not at all. */
    private volatile long keepNanos = LockManagerBuilder.DEFAULT_READER_SLOT_KEEP.toNanos();
    /** Set when the lock manager closes (or its timer stops): no group is kept from then on. */
    private volatile boolean closed;

    ReaderSlotKeep(KeepTimer timer) {
        this.timer = timer;
    }

    void keepFor(Duration keep) {
        this.keepNanos = keep.toNanos();
    }

    /** The lock manager closes: no group is kept from now on. */
    void close() {
        closed = true;
    }

    /**
     * @param empty the current group, without readers, that nobody else keeps
     * @param ended what the timer runs when the moment may be over
     * @return whether the group stays held for its moment: begun now, or still running
     */
    boolean keeps(ReaderGroup empty, Runnable ended) {
        long keep = keepNanos;
        if (empty.slot.mode() != LockMode.OPTIMISTIC || closed || keep == 0) {
            return false;
        }
        long now = timer.nanoTime();
        if (empty.keep == ReaderGroup.Keep.NOT_BEGUN) {
            // a timer still pending sees the new end and waits on
            if (!empty.keepTimed && !schedule(keep, ended)) {
                return false;
            }
            empty.keepTimed = true;
            empty.keep = ReaderGroup.Keep.RUNNING;
            empty.keptUntilNanos = now + keep;
            return true;
        }
        return empty.keep == ReaderGroup.Keep.RUNNING && now - empty.keptUntilNanos < 0;
    }

    /**
     * The timer of a group's keep fired.
     *
     * @return how long the keep still runs (it began again meanwhile: the timer must start again), else 0
     */
    long timerFired(ReaderGroup kept) {
        long left = kept.keptUntilNanos - timer.nanoTime();
        if (kept.keep == ReaderGroup.Keep.RUNNING && left > 0 && !closed) {
            return left;
        }
        kept.keepTimed = false;
        if (kept.keep == ReaderGroup.Keep.RUNNING) {
            kept.keep = ReaderGroup.Keep.OVER; // not kept again before a reader joins it or a write ends
        }
        return 0;
    }

    /**
     * Runs the task once, after {@code nanos}, off the caller's thread.
     *
     * @return false, and nothing is kept from now on, when the timer no longer runs: the lock manager closes
     */
    boolean schedule(long nanos, Runnable task) {
        if (timer.once(nanos, task)) {
            return true;
        }
        closed = true;
        return false;
    }
}
