package io.locked.internal.base;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ends the moments a lock manager keeps something held past its last use (an emptied reader slot, a released
 * lease) on one timer: each keep waits in one queue in the order its moment ends, and one sweep at a time ends
 * those due, one after another, then sleeps until the next one's end.
 *
 * <p>One timer, not one task per keep: the timer runs on the lease watchdog, which also renews every lease of
 * the JVM, and a stream of keeps queued a task and a call per keep there, faster than they ran. While
 * {@link #MOST_KEPT} keeps wait, a bounded keep is refused (its owner releases at once), so neither the queue
 * nor what it holds grows with the stream. Once the manager closes, or the timer stops, nothing is queued.
 */
public final class KeepSweep {
    /** The most keeps waiting at once: past a thousand keys used within one moment, a keep rarely meets its next use. */
    public static final int MOST_KEPT = 1024;

    /** A keep, and what ends it, due when its moment ends; equal to itself only. */
    private static final class Kept {
        final String key;
        final Runnable ended;
        final long dueNanos;

        Kept(String key, Runnable ended, long dueNanos) {
            this.key = key;
            this.ended = ended;
            this.dueNanos = dueNanos;
        }
    }

    private final KeepTimer timer;
    private final String what;
    /** In the order their moments end: each moment is as long as the ones before it (a new length only delays). */
    private final Queue<Kept> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    /** Whether a sweep is scheduled or running: then a keep queued is swept by it. */
    private final AtomicBoolean sweeping = new AtomicBoolean();
    /** Set when the lock manager closes, or its timer stops: nothing is queued from then on. */
    private volatile boolean closed;

    /** @param what what is kept, as its end's failure is logged ("a reader slot kept") */
    public KeepSweep(KeepTimer timer, String what) {
        this.timer = timer;
        this.what = what;
    }

    /** @return the timer's clock, on which the moments are measured */
    public long nanoTime() {
        return timer.nanoTime();
    }

    /** @return whether the manager closed or the timer stopped: nothing is kept any more */
    public boolean closed() {
        return closed;
    }

    /** The lock manager closes: nothing is queued from now on, and what waits is forgotten (the owner releases it). */
    public void close() {
        closed = true;
        queue.clear();
        queued.set(0);
    }

    /**
     * @param key      the key kept, for the log
     * @param ended    what ends the keep, run by the sweep once the moment is due
     * @param dueNanos when the moment ends, on {@link #nanoTime()}
     * @param bounded  whether the keep is refused while {@link #MOST_KEPT} keeps wait
     * @return whether the keep waits for its sweep; false when refused or the timer no longer runs
     */
    public boolean queue(String key, Runnable ended, long dueNanos, boolean bounded) {
        if (queued.incrementAndGet() > MOST_KEPT && bounded) {
            queued.decrementAndGet();
            return false;
        }
        Kept kept = new Kept(key, ended, dueNanos);
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
                // a keep queued just before that found the sweep still on: the sweep goes on for it
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
    private void end(Kept kept) {
        try {
            kept.ended.run();
        } catch (RuntimeException failure) {
            LockLog.storeFailed(kept.key, what, "the end of its keep", failure);
        }
    }
}
