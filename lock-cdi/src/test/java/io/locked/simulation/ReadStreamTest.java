package io.locked.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.LockType;
import io.locked.internal.DefaultLockManager;
import io.locked.internal.base.LockMetrics;
import io.locked.internal.lease.LeaseWatchdog;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A JVM that reads a stream of distinct keys {@code OPTIMISTIC}: each key's emptied reader slot is kept a
 * moment for the next reader ({@code keepReaderSlotsFor}). The keeps must not flood the watchdog that also
 * renews every lease of the JVM: one timer per kept slot (the old way) queued a task and a call per read,
 * and a ten-million-key run lost 890,348 slots past their leases behind that queue and filled the heap.
 *
 * <p>In virtual time the stream runs while no timer fires, as on a machine whose watchdog falls behind: it
 * shows how much the keeps queue, whatever the machine's speed.
 */
class ReadStreamTest {
    private static final int READS = 10_000;
    /** The most emptied slots a JVM keeps at once (documented at {@code LockManagerBuilder.keepReaderSlotsFor}). */
    private static final int MOST_KEPT = 1024;
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void aStreamOfReadsOfDistinctKeysKeepsFewSlotsOnOneTimerAndTheJvmsLeasesRenewOnTime() {
        VirtualClock clock = new VirtualClock(new Random(1));
        VirtualScheduler scheduler = new VirtualScheduler(clock);
        InMemoryLockRepository store = new InMemoryLockRepository(clock::nanoTime);
        DefaultLockManager locks = new DefaultLockManager(store, clock,
                new LeaseWatchdog(scheduler, clock::nanoTime, new DirectCalls(null, "calls"), store, clock),
                Duration.ofSeconds(5), LockMetrics.NONE, null);
        try (LockHandle held = locks.acquire(LockRequest.of("held").mode(LockMode.OPTIMISTIC).lease(LEASE))) {
            int tasksBefore = scheduler.waiting();
            for (int i = 0; i < READS; i++) {
                locks.acquire(read(i)).close();
            }
            long kept = slotsHeld(store);
            assertTrue(kept > 0 && kept <= MOST_KEPT, kept + " slots kept at once");
            // each kept slot's lease is renewed as any other; one timer ends all the keeps
            assertTrue(scheduler.waiting() - tasksBefore <= kept + 1, "the keeps of " + kept + " slots queued "
                    + (scheduler.waiting() - tasksBefore) + " tasks on the watchdog for " + READS + " reads");

            runFor(clock, scheduler, LEASE.toNanos() * 3 / 2); // past every keep, and past the held lease's own end unless renewed
            assertEquals(0, slotsHeld(store), "a kept slot outlived its keep");
            assertTrue(held.isValid(), "the held lease was not renewed");
            assertTrue(store.holds("held"), "the held lease ran out in the store");
        } finally {
            locks.close();
        }
    }

    /** @return the reader slots held: every row held but the lock this JVM holds throughout */
    private static long slotsHeld(InMemoryLockRepository store) {
        return store.rowsHeld() - 1;
    }

    private static LockRequest read(int i) {
        return LockRequest.of("read:" + i).mode(LockMode.OPTIMISTIC).type(LockType.READ).lease(LEASE);
    }

    /** Moves virtual time on, running each watchdog task when it is due. */
    private static void runFor(VirtualClock clock, VirtualScheduler scheduler, long nanos) {
        long end = clock.nanoTime() + nanos;
        while (scheduler.nextDue() <= end) {
            clock.advanceTo(scheduler.nextDue());
            while (scheduler.runNextDue()) {
                // each task due now, in order
            }
        }
        clock.advanceTo(end);
    }
}
