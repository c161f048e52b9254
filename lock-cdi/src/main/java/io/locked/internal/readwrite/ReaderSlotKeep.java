package io.locked.internal.readwrite;

import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.internal.base.LockLog;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The moment an emptied {@code OPTIMISTIC} reader group stays held for its JVM's next reader, which joins
 * it without a statement, or next writer, which parks it if it gets the writer row meanwhile
 * ({@link LockManagerBuilder#keepReaderSlotsFor}). The moment begins when nobody else keeps the group
 * ({@link LocalReadWrite}), and ends on one timer for all the groups kept; a reader that joins or a write
 * that ends lets it begin again. Once the lock manager closes, nothing is kept.
 *
 * <p>One timer, not one per group: the timer runs on the lease watchdog, which also renews every lease of
 * the JVM, and a stream of reads of distinct keys queued a task and a call per read there, faster than they
 * ran. The groups kept wait in one queue in the order their moments end, and one sweep at a time ends those
 * due, releasing their slots one after another; while {@link #MOST_KEPT} groups wait, an emptied group is
 * not kept (its last reader releases it), so neither the queue nor the slots it holds grow with the stream.
 *
 * <p>The methods that take a group run under the monitor of the group's key state, which guards the
 * group's keep fields; the queue and the timer take no lock of that state's.
 */
final class ReaderSlotKeep {
    /** The most groups kept at once: past a thousand keys read within one moment, a keep rarely meets its next reader. */
    static final int MOST_KEPT = 1024;

    /** A group kept, and what ends its keep, due when its moment ends; equal to itself only. */
    private static final class Kept {
        final ReaderGroup group;
        final Runnable ended;
        final long dueNanos;

        Kept(ReaderGroup group, Runnable ended, long dueNanos) {
            this.group = group;
            this.ended = ended;
            this.dueNanos = dueNanos;
        }
    }

    private final KeepTimer timer;
    /** In the order their moments end: each moment is as long as the ones before it (a new length only delays). */
    private final Queue<Kept> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    /** Whether a sweep is scheduled or running: then a group queued is swept by it. */
    private final AtomicBoolean sweeping = new AtomicBoolean();
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

    /** The lock manager closes: no group is kept from now on (it releases those kept). */
    void close() {
        closed = true;
        queue.clear();
        queued.set(0);
    }

    /**
     * @param empty the current group, without readers, that nobody else keeps
     * @param ended what ends the keep once the moment may be over
     * @return whether the group stays held for its moment: begun now, or still running
     */
    boolean keeps(ReaderGroup empty, Runnable ended) {
        long keep = keepNanos;
        if (empty.slot.mode() != LockMode.OPTIMISTIC || closed || keep == 0) {
            return false;
        }
        long now = timer.nanoTime();
        if (empty.keep == ReaderGroup.Keep.NOT_BEGUN) {
            // a group still queued is swept at its old end and waits on to its new one
            if (!empty.keepTimed && !queued(empty, ended, now + keep, true)) {
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
     * A group whose keep began again while it waited waits on, {@code nanos} more.
     *
     * @return false, and nothing is kept from now on, when the timer no longer runs: the lock manager closes
     */
    boolean waitsOn(ReaderGroup kept, long nanos, Runnable ended) {
        // it left the queue a moment ago, on the one sweep: its place is still there, whatever came meanwhile
        return queued(kept, ended, timer.nanoTime() + nanos, false);
    }

    /** @param bounded whether the group is refused while {@link #MOST_KEPT} groups wait */
    private boolean queued(ReaderGroup group, Runnable ended, long dueNanos, boolean bounded) {
        if (queued.incrementAndGet() > MOST_KEPT && bounded) {
            queued.decrementAndGet();
            return false;
        }
        Kept kept = new Kept(group, ended, dueNanos);
        queue.add(kept);
        if (sweeping.compareAndSet(false, true) && !timer.once(Math.max(0, dueNanos - timer.nanoTime()), this::sweep)) {
            closed = true;
            if (queue.remove(kept)) {
                queued.decrementAndGet();
            }
            sweeping.set(false);
            return false;
        }
        if (closed && queue.remove(kept)) { // closed meanwhile: the close releases what it finds kept
            queued.decrementAndGet();
            return false;
        }
        return true;
    }

    /** Ends every keep that is due, in order, then sleeps until the next one's end; one sweep at a time. */
    private void sweep() {
        while (true) {
            Kept head = queue.peek();
            if (head == null) {
                sweeping.set(false);
                // a group queued just before that found the sweep still on: the sweep goes on for it
                if (queue.isEmpty() || !sweeping.compareAndSet(false, true)) {
                    return;
                }
                continue;
            }
            long wait = head.dueNanos - timer.nanoTime();
            if (wait > 0 && !closed) {
                if (timer.once(wait, this::sweep)) {
                    return;
                }
                closed = true; // the timer stopped: every keep ends now
                continue;
            }
            if (queue.remove(head)) {
                queued.decrementAndGet();
                end(head);
            }
        }
    }

    /** Ends one keep; a failure of its release must not stop the sweep, which ends every other keep. */
    private static void end(Kept kept) {
        try {
            kept.ended.run();
        } catch (RuntimeException failure) {
            LockLog.storeFailed(kept.group.slot.key(), "a reader slot kept", "the end of its keep", failure);
        }
    }
}
