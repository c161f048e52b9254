package io.locked.internal.lease;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The renewal ticks of every lease of one length where the store renews in batches: one task of the
 * scheduler for all of them, which runs at each point of a grid of a {@value LeaseRenewals#GATHER_PART}th
 * of the lease and tells the leases whose tick falls there that their renewal is due.
 *
 * <p>A lease's ticks fall every {@value #GRID_POINTS_PER_PERIOD} grid points, a third of the lease, the first
 * three to four points after it was taken, on the first point at or before a third of the lease from then:
 * a renewal still goes out before half the lease is gone ({@link LeaseRenewals}). Each lease of the JVM was a
 * periodic task of its own before, in a queue of thousands that the scheduler kept in order at every tick,
 * take and release (a quarter of the CPU of renewing 10,000 leases); here a take adds the lease to its phase's
 * set and a release removes it. The task runs while leases are registered and stops at the first point that
 * finds none.
 *
 * <p>Leases are told in the order they were added, so that the deterministic simulation runs the same every time.
 */
final class GridTicks {
    /** Grid points per period of ticks: a period is a third of the lease, a grid point a twelfth. */
    static final int GRID_POINTS_PER_PERIOD = 4;
    private final long gridNanos;
    private final ScheduledExecutorService scheduler;
    private final LongSupplier schedulerClock;
    private final Consumer<RenewableLease> due;
    private final Consumer<GridTicks> stopped;
    /** The leases by phase: the grid points' numbers modulo {@link #GRID_POINTS_PER_PERIOD}; guarded by this. */
    private final List<Set<Registration>> phases = new ArrayList<>(GRID_POINTS_PER_PERIOD);
    /** The task at the grid points, and the number of the point it runs next; null while no lease is registered. */
    private ScheduledFuture<?> ticking;
    private long nextPoint;

    /** A lease's place on the grid; {@link #stop()} ends its ticks. */
    final class Registration implements RenewalSchedule {
        private final RenewableLease lease;
        /** The number of the grid point of its first tick. */
        private final long firstPoint;

        private Registration(RenewableLease lease, long firstPoint) {
            this.lease = lease;
            this.firstPoint = firstPoint;
        }

        @Override
        public void stop() {
            remove(this);
        }
    }

    /**
     * @param gridNanos      the grid's step, a {@value LeaseRenewals#GATHER_PART}th of the lease
     * @param scheduler      where the task at the grid points runs
     * @param schedulerClock the scheduler's clock, on which the grid lies
     * @param due            told each lease whose tick has come, on the scheduler's thread
     * @param stopped        told when the task stopped, no lease left: the watchdog forgets this grid (a lease
     *                       added later still restarts it), so that leases of ever new lengths leave nothing behind
     */
    GridTicks(long gridNanos, ScheduledExecutorService scheduler, LongSupplier schedulerClock, Consumer<RenewableLease> due,
              Consumer<GridTicks> stopped) {
        this.gridNanos = gridNanos;
        this.scheduler = scheduler;
        this.schedulerClock = schedulerClock;
        this.due = due;
        this.stopped = stopped;
        for (int i = 0; i < GRID_POINTS_PER_PERIOD; i++) {
            phases.add(new LinkedHashSet<>());
        }
    }

    /** @return the lease's ticks, or null if the scheduler was shut down (the watchdog closed) */
    synchronized RenewalSchedule add(RenewableLease lease) {
        if (scheduler.isShutdown()) {
            return null;
        }
        long now = schedulerClock.getAsLong();
        // the last grid point at or before a period from now: three to four grid points away
        long firstPoint = Math.floorDiv(now, gridNanos) + GRID_POINTS_PER_PERIOD;
        if (ticking == null) {
            nextPoint = Math.floorDiv(now, gridNanos) + 1;
            try {
                ticking = scheduler.scheduleAtFixedRate(this::tick, gridNanos - Math.floorMod(now, gridNanos), gridNanos,
                        TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException closed) {
                return null;
            }
        }
        Registration registration = new Registration(lease, firstPoint);
        phases.get(phase(firstPoint)).add(registration);
        return registration;
    }

    private synchronized void remove(Registration registration) {
        phases.get(phase(registration.firstPoint)).remove(registration);
    }

    /** At a grid point: tells the leases whose tick falls there, outside the monitor; stops where none is left. */
    void tick() {
        List<RenewableLease> dueNow = new ArrayList<>();
        boolean stoppedNow = false;
        synchronized (this) {
            if (phases.stream().allMatch(Set::isEmpty)) {
                ticking.cancel(false);
                ticking = null;
                stoppedNow = true;
            } else {
                // counted, not read off the clock: a late run (a busy scheduler) still tells each point once, in turn
                long point = nextPoint++;
                for (Registration registration : phases.get(phase(point))) {
                    if (registration.firstPoint <= point) {
                        dueNow.add(registration.lease);
                    }
                }
            }
        }
        if (stoppedNow) {
            stopped.accept(this);
        }
        dueNow.forEach(due);
    }

    private static int phase(long point) {
        return (int) Math.floorMod(point, (long) GRID_POINTS_PER_PERIOD);
    }
}
