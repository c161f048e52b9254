package io.locked.internal.permit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.internal.exclusive.ModelLocks;
import io.locked.internal.exclusive.ScenarioThreads;
import io.locked.internal.lease.LeaseWatchdog;
import io.locked.spi.LockRows;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.Test;

/**
 * Model checking of permits ({@link PermitSlots}) over one manager's exclusive locks, as the manager drives
 * them: each slot a row, taken through reentrancy, its JVM-local queue and the store ({@link ModelLocks}, an
 * in-memory store, {@code PESSIMISTIC} holds). Lincheck runs each scenario under many interleavings of its
 * threads and reports the one that breaks an assertion or leaves a thread blocked for good. The promises
 * checked: never more holders than permits, each in a slot of its own among the key's; a permit given back
 * is taken by a waiter, so no waiter is left behind; a holder that asks again enters its own permit, never
 * a second one; and once all left, nothing is held or kept.
 *
 * <p>Time stands still, and a waiter's pause between two rounds of tries ends when a hold has ended since
 * that round began ({@link Waits}): a round that began after the last release finds the same slots taken,
 * so the rounds skipped are ones that could change nothing, and a waiter that would need one to get in is a
 * waiter left behind. Each negative control seeds one bug ({@link PermitSlots.SeededBug}) and must be found.
 *
 * <p>Where a waiter's search of the slots starts, random in a JVM, is fixed by its thread here
 * ({@link #FIRST_SLOT_INDEX}, {@link ModelLocks.Choices}), so that each search order is in the scenarios
 * and Lincheck's replay of a failing interleaving draws what the run that failed drew.
 *
 * <p>What the model cannot show: other JVMs (every holder is of this one), leases (the watchdog's threads
 * would run beside the model's), and a pause's length or the spreading of waiters over the slots.
 */
class PermitsModelTest {
    /** Interleavings explored per scenario: each scenario has two or three threads of a few steps. */
    private static final int INVOCATIONS = 100;
    private static final String KEY = "k";
    private static final int PERMITS = 2;
    private static final LockRequest REQUEST = LockRequest.of(KEY).mode(LockMode.PESSIMISTIC).permits(PERMITS);
    /**
     * Where each scenario thread's first search of the slots starts (0: the first slot), by the order the
     * threads are made in; a thread that searches again starts one slot on. The first two start at the last
     * slot, so that the one that comes second while the other holds it finds it taken and searches on (past
     * it, with {@code NO_WRAP}); the third starts at the first slot; a holder that asks again starts at the
     * first slot, which the other thread's search reaches only second.
     */
    private static final int[] FIRST_SLOT_INDEX = {1, 1, 0};
    /** Closed before any scenario: made here, outside Lincheck, when the class loads. */
    private static final LeaseWatchdog CLOSED_WATCHDOG = ModelLocks.closedWatchdog();

    /**
     * Three threads ask for one of two permits, with no end to their wait: at most two inside at once, each
     * in a slot of the key's own, and the third gets in when one leaves. Finds
     * {@link PermitSlots.SeededBug#NO_WRAP} (a slot past the last taken, a third holder beside two).
     */
    @Test
    void neverMoreHoldersThanPermitsAndEveryWaiterGetsIn() {
        Lincheck.runConcurrentTest(INVOCATIONS, () -> threeWaitersForTwoPermits(null));
    }

    @Test
    void theModelCheckingFindsASlotPastTheLast() {
        ScenarioThreads.assertFinds("past the key's last slot", () -> Lincheck.runConcurrentTest(INVOCATIONS,
                () -> threeWaitersForTwoPermits(PermitSlots.SeededBug.NO_WRAP)));
    }

    /**
     * A holder of a permit asks again while another thread comes for one: the holder enters its own permit
     * (the same slot, the same token) whichever slot its round would try first, and the other gets in.
     * Finds {@link PermitSlots.SeededBug#NO_REENTRY} (the holder takes the other permit too).
     */
    @Test
    void aHolderThatAsksAgainEntersItsOwnPermit() {
        Lincheck.runConcurrentTest(INVOCATIONS, () -> holderAsksAgain(null));
    }

    @Test
    void theModelCheckingFindsAHolderTakingASecondPermit() {
        ScenarioThreads.assertFinds("took a second permit", () -> Lincheck.runConcurrentTest(INVOCATIONS,
                () -> holderAsksAgain(PermitSlots.SeededBug.NO_REENTRY)));
    }

    private static void threeWaitersForTwoPermits(PermitSlots.SeededBug bug) {
        Model model = new Model(bug);
        Runnable holder = () -> model.leave(model.enter());
        model.joinAll(List.of(model.thread(holder), model.thread(holder), model.thread(holder)));
        assertEquals(3, model.entered.get(), "a waiter never got a permit");
        model.assertNothingLeft();
    }

    private static void holderAsksAgain(PermitSlots.SeededBug bug) {
        Model model = new Model(bug);
        Thread reentering = model.thread(() -> {
            LockHandle outer = model.enter();
            LockHandle nested = model.permits.acquire(REQUEST, model.locks.scopes.ofCurrentThread(), Long.MAX_VALUE / 4,
                    model.locks.rows(REQUEST));
            assertNotNull(nested, "a holder asking again got no permit");
            assertTrue(nested.slot() == outer.slot() && nested.token() == outer.token(),
                    "a holder asking again took a second permit: slot " + nested.slot() + " beside " + outer.slot());
            nested.close();
            model.leave(outer);
        });
        Thread other = model.thread(() -> model.leave(model.enter()));
        model.joinAll(List.of(reentering, other));
        assertEquals(2, model.entered.get(), "a thread never got a permit");
        model.assertNothingLeft();
    }

    /**
     * How a waiter's pause ends: when a hold has ended since its round of tries began. Each thread's round
     * begins with its request and again after each pause.
     */
    private static final class Waits {
        private final Map<Thread, Integer> endsSeenAtRoundStart = new HashMap<>();
        private int ends;

        synchronized void roundBegins() {
            endsSeenAtRoundStart.put(Thread.currentThread(), ends);
        }

        synchronized void pause() {
            Thread waiter = Thread.currentThread();
            while (ends == endsSeenAtRoundStart.get(waiter)) {
                try {
                    wait();
                } catch (InterruptedException unexpected) {
                    throw new AssertionError(unexpected);
                }
            }
            endsSeenAtRoundStart.put(waiter, ends);
        }

        synchronized void holdEnded() {
            ends++;
            notifyAll();
        }
    }

    /** One manager's permits of the key, and who is inside them. */
    private static final class Model extends ScenarioThreads {
        final Waits waits = new Waits();
        final ModelLocks locks = new ModelLocks(CLOSED_WATCHDOG, waits::pause);
        final PermitSlots permits;
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger entered = new AtomicInteger();

        Model(PermitSlots.SeededBug bug) {
            permits = new PermitSlots(locks.time, bug);
        }

        /** Scenario threads in the order they are made: each thread's first slot is its place's. */
        private int threadsMade;

        @Override
        public Thread thread(Runnable body) {
            int first = FIRST_SLOT_INDEX[threadsMade++];
            return super.thread(() -> {
                locks.choices.made(Thread.currentThread(), first);
                body.run();
            });
        }

        /** A permit, waited for without end; its holder counts as inside from here until {@link #leave}. */
        LockHandle enter() {
            waits.roundBegins();
            LockHandle permit = permits.acquire(REQUEST, locks.scopes.ofCurrentThread(), Long.MAX_VALUE / 4,
                    locks.rows(REQUEST));
            assertNotNull(permit, "a wait without end ended without a permit");
            assertTrue(permit.slot() >= 1 && permit.slot() <= PERMITS, "a permit in slot " + permit.slot()
                    + ", past the key's last slot");
            entered.incrementAndGet();
            assertTrue(inside.incrementAndGet() <= PERMITS, "more holders than permits");
            return permit;
        }

        void leave(LockHandle permit) {
            inside.decrementAndGet();
            permit.close();
            waits.holdEnded();
        }

        void assertNothingLeft() {
            List<String> slots = new ArrayList<>();
            for (int slot = 1; slot <= PERMITS + 1; slot++) {
                slots.add(LockRows.permitSlot(KEY, slot));
            }
            locks.assertNothingLeft(slots);
        }
    }
}
