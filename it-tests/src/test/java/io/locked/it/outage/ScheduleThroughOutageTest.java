package io.locked.it.outage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.it.server.DatabaseProxy;
import io.locked.it.server.MariaDbEndpoint;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The recipe of docs/scheduled-jobs.md for a fixed-rate executor, through a database outage: two
 * instances, each with its own scheduler and lock store, fire the recipe's task every period against
 * one MariaDB reached through a proxy. The proxy cuts every connection and refuses new ones until both
 * instances lost two ticks to the outage, then lets them through again.
 *
 * <p>Checked on one shared history of what each tick did, never on elapsed time: both schedules still
 * run after the outage and run the job again; no two runs overlap; tokens rise; no tick number ran the
 * job twice, and every tick number that no failure touched ran it exactly once (the hold is shorter
 * than the period by half a period, the margin the two schedulers' triggers may drift apart).
 */
class ScheduleThroughOutageTest {
    private static final Duration PERIOD = Duration.ofSeconds(2);
    private static final Duration HOLD = Duration.ofSeconds(1);
    /** A bound for a hung test, not a measure. */
    private static final Duration PATIENCE = Duration.ofMinutes(2);

    private enum Kind { CUT, RESTORED, RUN_STARTED, RUN_ENDED, TICK_LOST, TICK_ENDED }

    private record Event(Kind kind, int instance, int tick, long token, String detail) {
    }

    private final List<Event> history = new ArrayList<>();

    private void record(Kind kind, int instance, int tick, long token, String detail) {
        synchronized (history) {
            history.add(new Event(kind, instance, tick, token, detail));
        }
    }

    private List<Event> history() {
        synchronized (history) {
            return List.copyOf(history);
        }
    }

    private long count(Kind kind, int instance, int from) {
        List<Event> events = history();
        return events.subList(Math.min(from, events.size()), events.size()).stream()
                .filter(event -> event.kind() == kind && (instance < 0 || event.instance() == instance)).count();
    }

    @Test
    void aDatabaseOutageCostsTicksNeverTheSchedule() throws Exception {
        MariaDbEndpoint database = MariaDbEndpoint.shared();
        String key = "it:schedule-outage:" + UUID.randomUUID();
        LockRequest request = LockRequest.of(key).mode(LockMode.OPTIMISTIC).holdAtLeast(HOLD);
        try (DatabaseProxy proxy = DatabaseProxy.start(database)) {
            MariaDbEndpoint cutOff = database.through(proxy.port());
            List<AutoCloseable> resources = new ArrayList<>();
            List<ScheduledFuture<?>> schedules = new ArrayList<>();
            List<ScheduledExecutorService> schedulers = new ArrayList<>();
            try {
                for (int instance = 0; instance < 2; instance++) {
                    Store store = TestDatabase.MARIADB.openAt(cutOff.url(), cutOff.user(), cutOff.password(), 3,
                            settings -> settings.connectionWait(Duration.ofMillis(500)));
                    resources.add(store);
                    LockManager locks = LockManagerBuilder.on(store.repository()).build();
                    resources.add(locks);
                    schedulers.add(Executors.newSingleThreadScheduledExecutor());
                }
                for (int instance = 0; instance < 2; instance++) {
                    schedules.add(schedulers.get(instance).scheduleAtFixedRate(
                            tick(instance, (LockManager) resources.get(2 * instance + 1), request),
                            0, PERIOD.toMillis(), TimeUnit.MILLISECONDS));
                }

                awaitThat(() -> count(Kind.RUN_ENDED, -1, 0) >= 3, "three runs before the outage");
                record(Kind.CUT, -1, -1, 0, null);
                assertTrue(proxy.cut() > 0, "no connection to cut");
                int cut = history().size();
                awaitThat(() -> stillScheduled(schedules) && count(Kind.TICK_LOST, 0, cut) >= 2
                                && count(Kind.TICK_LOST, 1, cut) >= 2,
                        "each instance lost two ticks to the outage");
                record(Kind.RESTORED, -1, -1, 0, null);
                proxy.restore();
                int restored = history().size();
                awaitThat(() -> stillScheduled(schedules) && count(Kind.RUN_ENDED, -1, restored) >= 3,
                        "three runs after the outage");
            } finally {
                schedules.forEach(schedule -> schedule.cancel(false));
                for (ScheduledExecutorService scheduler : schedulers) {
                    scheduler.shutdown();
                    assertTrue(scheduler.awaitTermination(PATIENCE.toSeconds(), TimeUnit.SECONDS));
                }
                for (int i = resources.size() - 1; i >= 0; i--) {
                    resources.get(i).close();
                }
            }
        }
        checkHistory(history(), request.lease());
    }

    /** The recipe's task, its job and its catch recording into the history, each tick numbered. */
    private Runnable tick(int instance, LockManager locks, LockRequest request) {
        AtomicInteger ticks = new AtomicInteger();
        return () -> {
            int tick = ticks.getAndIncrement();
            new OutageProofTick(locks, request, token -> {
                record(Kind.RUN_STARTED, instance, tick, token, null);
                record(Kind.RUN_ENDED, instance, tick, token, null);
            }, lost -> record(Kind.TICK_LOST, instance, tick, 0, lost.getClass().getSimpleName() + ": "
                    + lost.getMessage())).run();
            record(Kind.TICK_ENDED, instance, tick, 0, null);
        };
    }

    /**
     * @param lease the request's lease: a release the cut failed may have left its lease live (a lost release
     *              delays the key, never gives it to two), so the ticks within that lease after it find the key
     *              taken and skip without a failure
     */
    private static void checkHistory(List<Event> history, Duration lease) {
        int releaseLost = history.stream().filter(event -> event.kind() == Kind.TICK_LOST && event.detail() != null
                && event.detail().contains("releasing the lease failed")).mapToInt(Event::tick).min().orElse(-1);
        long leaseTicks = (lease.toMillis() + PERIOD.toMillis() - 1) / PERIOD.toMillis() + 1;
        Event open = null;
        long lastToken = 0;
        Map<Integer, Integer> runsPerTick = new HashMap<>();
        Map<Integer, Integer> ticksEnded = new HashMap<>();
        Map<Integer, Integer> ticksLost = new HashMap<>();
        for (Event event : history) {
            switch (event.kind()) {
                case RUN_STARTED -> {
                    assertNull(open, "two runs overlap: " + open + " and " + event);
                    assertTrue(event.token() > lastToken, "tokens rise: " + event + " after " + lastToken);
                    open = event;
                    lastToken = event.token();
                    runsPerTick.merge(event.tick(), 1, Integer::sum);
                }
                case RUN_ENDED -> open = null;
                case TICK_LOST -> ticksLost.merge(event.tick(), 1, Integer::sum);
                case TICK_ENDED -> ticksEnded.merge(event.tick(), 1, Integer::sum);
                default -> { }
            }
        }
        runsPerTick.forEach((tick, runs) -> assertEquals(1, runs, "tick " + tick + " ran the job " + runs + " times: "
                + history));
        ticksEnded.forEach((tick, instances) -> {
            boolean underALeaseLeftLive = releaseLost >= 0 && tick > releaseLost && tick <= releaseLost + leaseTicks;
            if (instances == 2 && !ticksLost.containsKey(tick) && !runsPerTick.containsKey(tick) && !underALeaseLeftLive) {
                fail("tick " + tick + " ended on both instances, neither failed, and nobody ran the job: " + history);
            }
        });
        assertTrue(ticksLost.keySet().stream().allMatch(tick -> history.stream()
                .filter(event -> event.kind() == Kind.TICK_LOST && event.tick() == tick)
                .allMatch(lost -> history.indexOf(lost) > history.indexOf(history.stream()
                        .filter(event -> event.kind() == Kind.CUT).findFirst().orElseThrow()))),
                "a tick was lost before the outage: " + history);
    }

    /** @return true; fails once a schedule has ended, which only a tick that threw does while not cancelled */
    private static boolean stillScheduled(List<ScheduledFuture<?>> schedules) {
        for (ScheduledFuture<?> schedule : schedules) {
            assertFalse(schedule.isDone(), "a schedule ended: one of its ticks threw");
        }
        return true;
    }

    private static void awaitThat(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not reached within " + PATIENCE + ": " + what);
            }
            Thread.sleep(20); // polling a condition, not waiting out a guess
        }
    }
}
