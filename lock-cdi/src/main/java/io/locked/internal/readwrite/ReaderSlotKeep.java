package io.locked.internal.readwrite;

import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.internal.base.KeepSweep;
import io.locked.internal.base.KeepTimer;
import java.time.Duration;

/**
 * The moment an emptied {@code OPTIMISTIC} reader group stays held for its JVM's next reader, which joins
 * it without a statement, or next writer, which parks it if it gets the writer row meanwhile
 * ({@link LockManagerBuilder#keepReaderSlotsFor}). The moment begins when nobody else keeps the group
 * ({@link LocalReadWrite}), and ends on one timer for all the groups kept ({@link KeepSweep}); a reader that
 * joins or a write that ends lets it begin again. While {@link KeepSweep#MOST_KEPT} keeps wait, an emptied
 * group is not kept (its last reader releases it). Once the lock manager closes, nothing is kept.
 *
 * <p>The methods that take a group run under the monitor of the group's key state, which guards the
 * group's keep fields; the sweep takes no lock of that state's.
 */
final class ReaderSlotKeep {
    private final KeepSweep sweep;
    /** How long an empty group stays held; 0: not at all. */
    private volatile long keepNanos = LockManagerBuilder.DEFAULT_READER_SLOT_KEEP.toNanos();

    ReaderSlotKeep(KeepTimer timer) {
        this.sweep = new KeepSweep(timer, "a reader slot kept");
    }

    void keepFor(Duration keep) {
        this.keepNanos = keep.toNanos();
    }

    /** The lock manager closes: no group is kept from now on (it releases those kept). */
    void close() {
        sweep.close();
    }

    /**
     * @param empty the current group, without readers, that nobody else keeps
     * @param ended what ends the keep once the moment may be over
     * @return whether the group stays held for its moment: begun now, or still running
     */
    boolean keeps(ReaderGroup empty, Runnable ended) {
        long keep = keepNanos;
        if (empty.slot.mode() != LockMode.OPTIMISTIC || sweep.closed() || keep == 0) {
            return false;
        }
        long now = sweep.nanoTime();
        if (empty.keep == ReaderGroup.Keep.NOT_BEGUN) {
            // a group still queued is swept at its old end and waits on to its new one
            if (!empty.keepTimed && !sweep.queue(empty.slot.key(), ended, now + keep, true)) {
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
     * A sweep found the group's moment due.
     *
     * @return how long the keep still runs (it began again meanwhile: the group must wait on), else 0
     */
    long timerFired(ReaderGroup kept) {
        long left = kept.keptUntilNanos - sweep.nanoTime();
        if (kept.keep == ReaderGroup.Keep.RUNNING && left > 0 && !sweep.closed()) {
            return left;
        }
        kept.keepTimed = false;
        if (kept.keep == ReaderGroup.Keep.RUNNING) {
            kept.keep = ReaderGroup.Keep.OVER; // not kept again before a reader joins it or a write ends
        }
        return 0;
    }

    /**
     * A group whose keep began again while it waited waits on, {@code nanos} more.
     *
     * @return false, and nothing is kept from now on, when the timer no longer runs: the lock manager closes
     */
    boolean waitsOn(ReaderGroup kept, long nanos, Runnable ended) {
        // it left the queue a moment ago, on the one sweep: its place is still there, whatever came meanwhile
        return sweep.queue(kept.slot.key(), ended, sweep.nanoTime() + nanos, false);
    }
}
