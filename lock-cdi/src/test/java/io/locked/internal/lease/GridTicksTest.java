package io.locked.internal.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.spi.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The one task per lease length that tells leases their renewals are due: each lease three to four grid
 * points after its take and every four points from then on, as when each lease was a task of its own; a
 * stopped lease no more; the task gone once no lease is left. The test moves the clock and runs the task
 * itself, so nothing depends on the machine's speed.
 */
class GridTicksTest {
    private static final long GRID = 10;
    private final AtomicLong clock = new AtomicLong();
    private final ManualScheduler scheduler = new ManualScheduler();
    private final List<String> told = new ArrayList<>();
    private final List<GridTicks> stopped = new ArrayList<>();
    private final GridTicks ticks = new GridTicks(GRID, scheduler, clock::get, lease -> told.add(lease.toString()), stopped::add);

    @AfterEach
    void stopScheduler() {
        scheduler.shutdownNow();
    }

    @Test
    void aLeaseIsDueThreeToFourGridPointsAfterItsTakeThenEveryFourPoints() {
        clock.set(25);
        assertNotNull(ticks.add(new NamedLease("a")));
        assertEquals(List.of(5L), scheduler.initialDelays, "the task starts at the next grid point");
        assertEquals(List.of(GRID), scheduler.periods);

        assertEquals(List.of(List.of(), List.of(), List.of(), List.of("a"), List.of(), List.of(), List.of(), List.of("a"),
                List.of(), List.of(), List.of(), List.of("a")), runPoints(3, 14),
                "due at 60 (35 after the take, between three and four points), then every 40");
    }

    @Test
    void aLeaseTakenOnAGridPointIsDueFourPointsLater() {
        clock.set(30);
        ticks.add(new NamedLease("a"));
        assertEquals(List.of(GRID), scheduler.initialDelays);
        List<List<String>> points = runPoints(4, 7);
        assertEquals(List.of(List.of(), List.of(), List.of(), List.of("a")), points, "due at 70, a third of the lease after 30");
    }

    @Test
    void leasesOfOnePointAreToldTogetherInTheOrderTheyCame() {
        clock.set(21);
        ticks.add(new NamedLease("first"));
        clock.set(29);
        ticks.add(new NamedLease("second"));
        clock.set(47);
        ticks.add(new NamedLease("later"));

        List<List<String>> points = runPoints(3, 10);
        assertEquals(List.of(List.of(), List.of(), List.of(), List.of("first", "second"), List.of(), List.of("later"),
                List.of(), List.of("first", "second")), points, "one task for all of them: at 60 and 100, and at 80");
        assertEquals(1, scheduler.initialDelays.size(), "one task scheduled");
    }

    @Test
    void aStoppedLeaseIsNotToldAndTheTaskEndsWithTheLastLease() {
        clock.set(0);
        RenewalSchedule a = ticks.add(new NamedLease("a"));
        RenewalSchedule b = ticks.add(new NamedLease("b"));
        a.stop();
        a.stop(); // a lease found lost stops its ticks, and its release again
        assertEquals(List.of(List.of(), List.of(), List.of(), List.of("b")), runPoints(1, 4));

        b.stop();
        scheduler.runTask();
        assertTrue(scheduler.tasks.get(0).isCancelled(), "no lease left: the task ended");
        assertEquals(List.of(ticks), stopped, "and the watchdog was told, to forget the grid");

        clock.set(53);
        ticks.add(new NamedLease("c"));
        assertEquals(2, scheduler.tasks.size(), "a new lease starts a new task");
        assertEquals(7L, scheduler.initialDelays.get(1), "at the next grid point, 60");
        assertEquals(List.of(List.of(), List.of(), List.of(), List.of("c")), runPoints(6, 9));
    }

    @Test
    void aLateTaskTellsEachPointOnceInTurn() {
        clock.set(5);
        ticks.add(new NamedLease("a"));
        clock.set(200); // the scheduler was busy: its runs at the points missed come back to back
        List<List<String>> runs = new ArrayList<>();
        for (int point = 1; point <= 8; point++) {
            told.clear();
            scheduler.runTask();
            runs.add(List.copyOf(told));
        }
        assertEquals(List.of(List.of(), List.of(), List.of(), List.of("a"), List.of(), List.of(), List.of(), List.of("a")), runs);
    }

    @Test
    void noTicksOnceTheSchedulerIsShutDown() {
        scheduler.shutdown();
        assertNull(ticks.add(new NamedLease("a")), "the watchdog was closed: the lease is not watched");
    }

    /** @return who was told at each grid point from {@code first} to {@code last}, running the task at each */
    private List<List<String>> runPoints(long first, long last) {
        List<List<String>> points = new ArrayList<>();
        for (long point = first; point <= last; point++) {
            clock.set(point * GRID);
            told.clear();
            scheduler.runTask();
            points.add(List.copyOf(told));
        }
        return points;
    }

    /** Keeps the periodic tasks scheduled; the test runs the last one. */
    private static final class ManualScheduler extends ScheduledThreadPoolExecutor {
        final List<Runnable> commands = new ArrayList<>();
        final List<ScheduledFuture<?>> tasks = new ArrayList<>();
        final List<Long> initialDelays = new ArrayList<>();
        final List<Long> periods = new ArrayList<>();

        ManualScheduler() {
            super(1);
        }

        @Override
        public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
            ScheduledFuture<?> never = super.schedule(() -> { }, 1, TimeUnit.DAYS);
            commands.add(command);
            tasks.add(never);
            initialDelays.add(unit.toNanos(initialDelay));
            periods.add(unit.toNanos(period));
            return never;
        }

        void runTask() {
            int last = commands.size() - 1;
            if (!tasks.get(last).isCancelled()) {
                commands.get(last).run();
            }
        }
    }

    private record NamedLease(String name) implements RenewableLease {
        @Override
        public String toString() {
            return name;
        }

        @Override
        public Duration storedLease() {
            return Duration.ofNanos(12 * GRID);
        }

        @Override
        public Duration leaseLength() {
            return storedLease();
        }

        @Override
        public AtomicBoolean renewalUnderway() {
            throw new UnsupportedOperationException("the grid only tells the lease");
        }

        @Override
        public boolean renewsAlone() {
            return false;
        }

        @Override
        public Lease leaseToRenew() {
            throw new UnsupportedOperationException("the grid only tells the lease");
        }

        @Override
        public void renewed(Lease renewed, long sentAtNanos) {
            throw new UnsupportedOperationException("the grid only tells the lease");
        }

        @Override
        public void renewalFailed(RuntimeException failure, boolean inBatch) {
            throw new UnsupportedOperationException("the grid only tells the lease");
        }

        @Override
        public void renew() {
            throw new UnsupportedOperationException("the grid only tells the lease");
        }

        @Override
        public void startRenewal(RenewalSchedule schedule) {
            throw new UnsupportedOperationException("the grid only tells the lease");
        }
    }
}
