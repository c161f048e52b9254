package io.locked.internal.exclusive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManagerClosedException;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.internal.lease.LeaseWatchdog;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.Test;

/**
 * Model checking of the drain at close: the manager's exclusive locks ({@link ExclusiveLocks}) refuse new
 * holds once closed, and its {@link Draining} waits for those held to end, as {@code DefaultLockManager.close}
 * runs them; over the in-memory store of {@link ModelLocks} ({@code PESSIMISTIC} holds). Lincheck runs each
 * scenario under many interleavings of its threads and reports the one that breaks an assertion or leaves
 * a thread blocked for good. The promises checked: a holder may enter its own key again during the drain,
 * and finish; an acquisition begun after the close is refused; the drain ends only when no hold it granted
 * is left, and no hold is granted after the drain ended; nothing is left counted.
 *
 * <p>Time stands still here, and the drain's bound is a day: its timed wait ends when a hold ends, never on
 * time. Each negative control seeds one bug ({@link ExclusiveSeededBug}) and must be found.
 *
 * <p>What the model cannot show: the manager's own gate in front of the exclusive locks (a closed manager
 * lets in only a thread that re-enters a hold of its own, {@code DefaultLockManager.acquireWithin}), which
 * {@code DrainOnCloseTest} checks on the manager and the randomized contract run on every store
 * ({@code DrainWithReentries}); leases, whose holds need a running watchdog; and a drain that runs out of time.
 */
class DrainModelTest {
    /** Interleavings explored per scenario: each scenario has two or three threads of a few steps. */
    private static final int INVOCATIONS = 100;
    private static final LockRequest HELD = LockRequest.of("held").mode(LockMode.PESSIMISTIC).maxWait(Duration.ZERO);
    private static final LockRequest NEW = LockRequest.of("new").mode(LockMode.PESSIMISTIC).maxWait(Duration.ZERO);
    private static final Duration DRAIN_BOUND = Duration.ofDays(1);
    /** Closed before any scenario: made here, outside Lincheck, when the class loads. */
    private static final LeaseWatchdog CLOSED_WATCHDOG = ModelLocks.closedWatchdog();

    /**
     * A holder enters its key again once the manager began to close, and finishes: the re-entry is allowed
     * whether it comes before the close refuses new holds or during the drain, and the drain ends when the
     * holder left. Finds {@link ExclusiveSeededBug#REFUSES_REENTRY}.
     */
    @Test
    void aHolderEntersItsKeyAgainDuringTheDrain() {
        Lincheck.runConcurrentTest(INVOCATIONS, () -> reentryDuringTheDrain(null));
    }

    @Test
    void theModelCheckingFindsADrainThatRefusesReentry() {
        ScenarioThreads.assertFinds("re-entry was refused", () -> Lincheck.runConcurrentTest(INVOCATIONS,
                () -> reentryDuringTheDrain(ExclusiveSeededBug.REFUSES_REENTRY)));
    }

    /**
     * A newcomer asks for a key while a holder finishes and the manager closes: begun after the close, it is
     * refused; let through, it is a hold the drain waits for, never one granted after the drain ended. Finds
     * {@link ExclusiveSeededBug#GRANTED_PAST_THE_DRAIN}, a gap this scenario found in the code as it
     * was: a newcomer that looked at the close before it began, and was tracked after the drain had found
     * nothing held, got its hold after the drain ended.
     */
    @Test
    void aNewcomerIsRefusedOrDrained() {
        Lincheck.runConcurrentTest(INVOCATIONS, () -> newcomerDuringTheClose(null));
    }

    @Test
    void theModelCheckingFindsAHoldGrantedPastTheDrain() {
        ScenarioThreads.assertFinds("granted after the drain ended", () -> Lincheck.runConcurrentTest(INVOCATIONS,
                () -> newcomerDuringTheClose(ExclusiveSeededBug.GRANTED_PAST_THE_DRAIN)));
    }

    private static void reentryDuringTheDrain(ExclusiveSeededBug bug) {
        Model model = new Model(bug);
        Thread holder = model.thread(() -> {
            LockHandle outer = model.enter(HELD);
            assertNotNull(outer, "the key was free");
            model.holderInside();
            try {
                model.awaitTheClose();
                LockHandle nested;
                try {
                    nested = model.locks.acquire(HELD);
                } catch (LockManagerClosedException refused) {
                    throw new AssertionError("a holder's re-entry was refused during the drain", refused);
                }
                assertNotNull(nested, "a holder's re-entry got nothing");
                assertEquals(outer.token(), nested.token(), "a re-entry is a hold of its own");
                nested.close();
            } finally {
                model.leave(outer);
            }
        });
        Thread closer = model.thread(() -> {
            model.awaitTheHolderInside();
            model.close();
        });
        model.joinAll(List.of(holder, closer));
        model.locks.assertNothingLeft(List.of(HELD.key()));
    }

    private static void newcomerDuringTheClose(ExclusiveSeededBug bug) {
        Model model = new Model(bug);
        Thread holder = model.thread(() -> {
            LockHandle held = model.enter(HELD);
            assertNotNull(held, "the key was free");
            model.holderInside();
            model.leave(held);
        });
        Thread newcomer = model.thread(() -> {
            boolean afterClose = model.closeBegun();
            LockHandle held;
            try {
                held = model.enter(NEW);
            } catch (LockManagerClosedException refused) {
                return;
            }
            assertNotNull(held, "the key was free");
            assertTrue(!afterClose, "an acquisition begun after the close was granted");
            model.leave(held);
        });
        Thread closer = model.thread(() -> {
            model.awaitTheHolderInside();
            model.close();
        });
        model.joinAll(List.of(holder, newcomer, closer));
        model.locks.assertNothingLeft(List.of(HELD.key(), NEW.key()));
    }

    /** One manager's exclusive locks, closed by one thread of the scenario, and who holds them. */
    private static final class Model extends ScenarioThreads {
        final ModelLocks locks;
        final AtomicInteger inside = new AtomicInteger();
        private boolean holderInside;
        private boolean closeBegun;
        private boolean drained;

        Model(ExclusiveSeededBug bug) {
            locks = new ModelLocks(CLOSED_WATCHDOG, ModelLocks.NO_PAUSE, bug);
        }

        /** A try for the key's lock; its holder counts as inside from here until {@link #leave}. */
        LockHandle enter(LockRequest request) {
            LockHandle held = locks.acquire(request);
            if (held != null) {
                inside.incrementAndGet();
                synchronized (this) {
                    assertTrue(!drained, "a hold was granted after the drain ended");
                }
            }
            return held;
        }

        void leave(LockHandle held) {
            inside.decrementAndGet();
            held.close();
        }

        /** As the manager closes: no new hold from now on, then the drain of those held. */
        void close() {
            synchronized (this) {
                closeBegun = true;
                notifyAll();
            }
            locks.locks.close();
            int stillHeld = locks.draining.awaitEnds(DRAIN_BOUND);
            synchronized (this) {
                drained = true;
            }
            assertEquals(0, stillHeld, "the drain ran out of time, which it cannot here");
            assertEquals(0, inside.get(), "the drain ended with a holder inside");
        }

        synchronized void awaitTheClose() {
            while (!closeBegun) {
                waitHere();
            }
        }

        synchronized boolean closeBegun() {
            return closeBegun;
        }

        synchronized void holderInside() {
            holderInside = true;
            notifyAll();
        }

        synchronized void awaitTheHolderInside() {
            while (!holderInside) {
                waitHere();
            }
        }

        private void waitHere() {
            try {
                wait();
            } catch (InterruptedException unexpected) {
                throw new AssertionError(unexpected);
            }
        }
    }
}
