package io.locked.internal.lease;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Where the batches of renewals run: one after another on one call thread while each ends soon, and on
 * one more thread each time none has started for {@link #STALL_NANOS} while batches wait, so that a batch
 * whose call hangs (a row locked elsewhere, until its statement's timeout) holds up the others twice that
 * long at most (the check that finds it hung may be the second after the others were queued).
 *
 * <p>Why not a thread per batch: the renewals of a JVM's leases fall due together, at the points of their
 * grid ({@link GridTicks}), so 10,000 leases of 30 s are bursts of 25 batches every 2.5 s. Each on a thread
 * of its own, they ran side by side, waited for the pool's connections, and each found the caches cold:
 * about 1 ms of CPU a batch, where batches one after another on one thread cost a fifth of that.
 */
final class BatchCalls implements Executor {
    /** How long the batches queued wait for a call to start before another thread takes them. */
    static final long STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private final Executor threads;
    private final ScheduledExecutorService scheduler;
    /** Guarded by this, as are the counts below. */
    private final Queue<Runnable> queued = new ArrayDeque<>();
    /** Threads draining the queue. */
    private int draining;
    /** Calls started so far: a stall check finds it unchanged where no thread has started one since. */
    private long started;
    /** Whether a stall check is scheduled: at most one is, while batches are queued. */
    private boolean checkPending;

    /**
     * @param threads   the watchdog's call threads, one taken per drain
     * @param scheduler where a stall is looked for
     */
    BatchCalls(Executor threads, ScheduledExecutorService scheduler) {
        this.threads = threads;
        this.scheduler = scheduler;
    }

    /** @throws RejectedExecutionException where no thread can take the batch (the watchdog closed) */
    @Override
    public void execute(Runnable batch) {
        boolean drainHere;
        long lookAfter = -1;
        synchronized (this) {
            drainHere = draining == 0;
            if (drainHere) {
                draining++;
            } else {
                queued.add(batch);
                lookAfter = checkNeeded();
            }
        }
        if (drainHere) {
            startDrain(batch);
        } else if (lookAfter >= 0) {
            lookForStallAfter(lookAfter);
        }
    }

    /** @return the calls started, where a stall check is to be scheduled now; else -1 (one is pending) */
    private long checkNeeded() {
        if (checkPending || queued.isEmpty()) {
            return -1;
        }
        checkPending = true;
        return started;
    }

    private void startDrain(Runnable first) {
        try {
            threads.execute(() -> drain(first));
        } catch (RejectedExecutionException closed) {
            synchronized (this) {
                draining--;
            }
            throw closed;
        }
    }

    private void drain(Runnable first) {
        Runnable next = first;
        while (next != null) {
            long lookAfter;
            synchronized (this) {
                started++;
                lookAfter = checkNeeded();
            }
            if (lookAfter >= 0) {
                lookForStallAfter(lookAfter);
            }
            try {
                next.run();
            } catch (RuntimeException | Error defect) {
                // a batch's own failures are its leases' (LeaseRenewals): this one is a defect, told, and the drain goes on
                Thread.currentThread().getUncaughtExceptionHandler().uncaughtException(Thread.currentThread(), defect);
            }
            synchronized (this) {
                // the watchdog's close interrupts its call threads: the batches queued are not renewed, as
                // no others are from then on
                next = Thread.currentThread().isInterrupted() ? null : queued.poll();
                if (next == null) {
                    draining--;
                }
            }
        }
    }

    private void lookForStallAfter(long startedBefore) {
        try {
            scheduler.schedule(() -> stallCheck(startedBefore), STALL_NANOS, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
            synchronized (this) {
                checkPending = false;
            }
        }
    }

    /**
     * Where no call started since the check was scheduled, every thread draining is held up, and another
     * takes the next batch; where one did, the check looks again later, while batches are queued.
     */
    private void stallCheck(long startedBefore) {
        Runnable next = null;
        long lookAfter = -1;
        synchronized (this) {
            checkPending = false;
            if (queued.isEmpty()) {
                return;
            }
            if (started == startedBefore) {
                next = queued.poll();
                draining++;
            } else {
                lookAfter = checkNeeded();
            }
        }
        if (next != null) {
            try {
                startDrain(next);
            } catch (RejectedExecutionException closed) {
                // the watchdog closed
            }
        } else if (lookAfter >= 0) {
            lookForStallAfter(lookAfter);
        }
    }
}
