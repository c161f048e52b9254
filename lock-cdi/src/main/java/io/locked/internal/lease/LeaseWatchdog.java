package io.locked.internal.lease;

import io.locked.internal.base.TimeSource;
import io.locked.spi.LockRepository;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Renews held leases in the background, every third of the lease, so that a renewal is sent
 * before half the lease is gone and one failed renewal still leaves time for the next; and checks
 * that the sessions of pessimistic holds are still alive. Where the store renews leases in batches,
 * a due renewal waits up to a twelfth of the lease for its batch ({@link LeaseRenewals}), and the
 * ticks of leases of one length fall on a grid of that twelfth, one task for all of them
 * ({@link GridTicks}), so that thousands of leases wake the scheduler a few times per lease length
 * rather than once per lease.
 *
 * <p>The scheduler's threads only start the calls. Each check, and each renewal of a lease alone, runs
 * on a thread of its own, at most one at a time per lock (a tick that finds the last call still running
 * is skipped), so a call that hangs (a row lock held elsewhere, a dead network, until its statement's
 * timeout) stalls its own lock and no other. Batches due together run one after another on one thread,
 * and those queued behind a batch that hangs go to another thread within a few tens of milliseconds
 * ({@link BatchCalls}). Those threads are created on demand and end after a minute idle; how many there
 * are at once is bounded by the calls in flight.
 */
public final class LeaseWatchdog implements AutoCloseable {
    // A no-op task every 250 ms keeps an early deadline at the head of the scheduler's queue. A new
    // renewal's task (a store without batches: due a third of a lease away, past the heartbeat for any
    // lease above 750 ms; with batches, a grid's task when its first lease comes) or session check (every
    // 5 s by default) then queues behind it without waking the watchdog thread, and so does its
    // cancellation at release: two thread wake-ups fewer per optimistic cycle (1.7 us of 11.4 us on H2,
    // before the grids), for 4 idle wake-ups a second. At 20 a second (50 ms) those wake-ups were most of an idle
    // JVM's watchdog CPU, and a fifth of the CPU of renewing 10,000 leases (RenewalBenchmark).
    private static final long HEARTBEAT_MILLIS = 250;
    /** How long the heartbeat may be late before the watchdog counts as stuck. */
    private static final long STUCK_NANOS = TimeUnit.SECONDS.toNanos(5);
    private final ScheduledExecutorService scheduler;
    private final ExecutorService calls;
    private final LeaseRenewals renewals;
    /** The ticks of the leases of each length, where the store renews in batches, by lease length in nanoseconds. */
    private final Map<Long, GridTicks> grids = new ConcurrentHashMap<>();
    /** Makes the grid of a lease length, made once rather than at each lease watched. */
    private final Function<Long, GridTicks> newGrid;
    /** The scheduler's own clock: the heartbeat and the ticks' grid are measured on it. */
    private final LongSupplier schedulerClock;
    private volatile long lastBeatNanos;

    /**
     * @param threads    the scheduler's threads
     * @param repository the store whose leases it renews
     * @param time       the clock the leases count their validity on
     */
    public LeaseWatchdog(int threads, LockRepository repository, TimeSource time) {
        this(scheduler(threads), System::nanoTime, new ThreadPoolExecutor(0, Integer.MAX_VALUE, 1, TimeUnit.MINUTES,
                new SynchronousQueue<>(), daemons("locked-watchdog-call-")), repository, time);
    }

    /**
     * A watchdog on executors of the caller's: the deterministic simulation runs every tick and call
     * itself, in virtual time.
     *
     * @param scheduler  where ticks are scheduled; shut down at {@link #close()}
     * @param schedulerClock the scheduler's clock
     * @param calls      where each check, renewal or batch runs; shut down at {@link #close()}
     * @param repository the store whose leases it renews
     * @param time       the clock the leases count their validity on
     */
    public LeaseWatchdog(ScheduledExecutorService scheduler, LongSupplier schedulerClock, ExecutorService calls,
                         LockRepository repository, TimeSource time) {
        this.schedulerClock = schedulerClock;
        this.lastBeatNanos = schedulerClock.getAsLong();
        scheduler.scheduleWithFixedDelay(() -> lastBeatNanos = schedulerClock.getAsLong(), HEARTBEAT_MILLIS, HEARTBEAT_MILLIS,
                TimeUnit.MILLISECONDS);
        this.scheduler = scheduler;
        this.calls = calls;
        this.renewals = new LeaseRenewals(repository, time, scheduler, calls, new BatchCalls(calls, scheduler), null);
        this.newGrid = length -> new GridTicks(length / LeaseRenewals.GATHER_PART, scheduler, schedulerClock, renewals::due,
                stopped -> grids.remove(length, stopped));
    }

    private static ScheduledExecutorService scheduler(int threads) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(threads, daemons("locked-lease-watchdog-"));
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    private static ThreadFactory daemons(String prefix) {
        return runnable -> {
            Thread thread = Executors.defaultThreadFactory().newThread(runnable);
            thread.setName(prefix + thread.getId());
            thread.setDaemon(true);
            return thread;
        };
    }

    /** @return whether the watchdog runs: not closed, and its heartbeat came lately (a stuck scheduler misses it) */
    public boolean isAlive() {
        return !scheduler.isShutdown() && schedulerClock.getAsLong() - lastBeatNanos < STUCK_NANOS;
    }

    /** @return false if the watchdog was closed and cannot renew the lease */
    public boolean watch(RenewableLease acquisition) {
        long leaseNanos = acquisition.leaseLength().toNanos();
        if (renewals.batches() && leaseNanos >= LeaseRenewals.GATHER_PART) {
            // ticks on a grid of the gathering's wait, the same for every lease of this length: one task
            // wakes at each grid point for all of them, not one per lease
            RenewalSchedule ticks = grids.computeIfAbsent(leaseNanos, newGrid).add(acquisition);
            if (ticks == null) {
                return false;
            }
            acquisition.startRenewal(ticks);
            return true;
        }
        long periodNanos = Math.max(1, leaseNanos / 3);
        try {
            ScheduledFuture<?> ticks = scheduler.scheduleWithFixedDelay(
                    () -> renewals.due(acquisition), periodNanos, periodNanos, TimeUnit.NANOSECONDS);
            acquisition.startRenewal(() -> ticks.cancel(false));
            return true;
        } catch (RejectedExecutionException closed) {
            return false;
        }
    }

    /**
     * Runs a check every {@code period} until it is cancelled.
     *
     * @return its schedule, or null if the watchdog was closed
     */
    public ScheduledFuture<?> every(Duration period, Runnable check) {
        long nanos = Math.max(1, period.toNanos());
        try {
            return scheduler.scheduleWithFixedDelay(offThread(check), nanos, nanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
            return null;
        }
    }

    /** @return the scheduler's clock, on which {@link #once} counts */
    public long schedulerNanos() {
        return schedulerClock.getAsLong();
    }

    /**
     * Runs a task once, on a call thread, after {@code nanos}.
     *
     * @return false, nothing scheduled, if the watchdog was closed
     */
    public boolean once(long nanos, Runnable task) {
        try {
            scheduler.schedule(offThread(task), nanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (RejectedExecutionException closed) {
            return false;
        }
    }

    /** The task as a tick that starts it on a call thread, unless its last run is still going. */
    private Runnable offThread(Runnable task) {
        AtomicBoolean running = new AtomicBoolean();
        Runnable run = () -> {
            try {
                task.run();
            } finally {
                running.set(false);
            }
        };
        return () -> {
            if (!running.compareAndSet(false, true)) {
                return;
            }
            try {
                calls.execute(run);
            } catch (RejectedExecutionException closed) {
                running.set(false);
            }
        };
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        calls.shutdownNow();
    }
}
