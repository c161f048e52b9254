package io.locked.internal.exclusive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.internal.base.TimeSource;
import io.locked.spi.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.Test;

/**
 * Model checking of the JVM-local queue per key ({@link KeyTurns}): Lincheck runs each scenario under
 * many interleavings of its threads, switching between them at every shared access, and reports the
 * interleaving that breaks an assertion or leaves a thread blocked for good. The promises checked:
 * an optimistic turn goes alone; pessimistic turns go at most {@value KeyTurns#PESSIMISTIC_TURNS} at
 * once, never beside an optimistic one; a turn that ends hands the key to its waiters, so none is left
 * behind (a waiter left behind is a thread blocked for good); a waiter reserved for a lease hand-over
 * gets that lease with its turn; and the queue of a key nobody uses is gone.
 *
 * <p>Time stands still here ({@link #FROZEN}): a wait never runs out, so only a turn handed over can end
 * one. Each negative control seeds one bug into a queue ({@link KeyTurns.SeededBug}) and must be
 * found: a turn admitted beside another, a turn that ends without handing the key on.
 */
class KeyTurnsModelTest {
    /** Interleavings explored per scenario: each scenario has two to three threads of a few steps. */
    private static final int INVOCATIONS = 2_000;
    private static final long NO_END = Long.MAX_VALUE / 4;
    private static final String KEY = "k";
    private static final HandOvers.Wish LEASE = new HandOvers.Wish("owner", "holder", Duration.ofSeconds(30));
    private static final TimeSource FROZEN = ModelHolds.FROZEN;

    @Test
    void optimisticTurnsGoOneAtATimeAndEveryWaiterGetsItsTurn() {
        Lincheck.runConcurrentTest(INVOCATIONS, () -> exclusiveTurns(new KeyTurns(FROZEN, () -> false), 3));
    }

    @Test
    void pessimisticTurnsGoAtMostTwoAtATimeNeverBesideAnOptimisticOne() {
        Lincheck.runConcurrentTest(INVOCATIONS, () -> {
            KeyTurns turns = new KeyTurns(FROZEN, () -> false);
            Section section = new Section();
            List<Thread> threads = List.of(
                    thread(() -> section.run(awaitTurn(turns, null), false)),
                    thread(() -> section.run(awaitTurn(turns, null), false)),
                    thread(() -> section.run(awaitTurn(turns, LEASE), true)));
            joinAll(threads);
            assertTrue(section.mostPessimistic.get() <= KeyTurns.PESSIMISTIC_TURNS, "too many pessimistic turns at once");
            assertEquals(0, section.besideOptimistic.get(), "a turn went beside an optimistic one");
            assertEquals(0, turns.keysInUse(), "the key's queue outlived its users");
        });
    }

    @Test
    void aReservedWaiterGetsTheHandedLeaseWithItsTurn() {
        Lincheck.runConcurrentTest(INVOCATIONS, () -> {
            KeyTurns turns = new KeyTurns(FROZEN, () -> false);
            Lease lease = new Lease(KEY, "next-owner", 2, 1);
            KeyTurns.Turn first = awaitTurn(turns, LEASE);
            List<KeyTurns.Turn> taken = new ArrayList<>();
            Thread waiter = thread(() -> {
                KeyTurns.Turn turn = awaitTurn(turns, LEASE);
                synchronized (taken) {
                    taken.add(turn);
                }
                turn.end();
            });
            Thread holder = thread(() -> {
                if (first.reserveSuccessor(LEASE.length()) != null) {
                    first.handedOver(new HandOvers.HandedLease(lease, 0));
                }
                first.end();
            });
            joinAll(List.of(waiter, holder));
            KeyTurns.Turn next = taken.get(0);
            // reserved if it queued before the holder looked; either way it holds the turn
            assertTrue(next.handed() == null || next.handed() instanceof HandOvers.HandedLease handed && handed.lease() == lease, "a hand-over reached the wrong turn");
            assertEquals(0, turns.keysInUse(), "the key's queue outlived its users");
        });
    }

    @Test
    void aTryWithoutWaitingEitherGoesAtOnceOrLeavesNoTrace() {
        Lincheck.runConcurrentTest(INVOCATIONS, () -> {
            KeyTurns turns = new KeyTurns(FROZEN, () -> false);
            Section section = new Section();
            AtomicInteger refused = new AtomicInteger();
            List<Thread> threads = List.of(
                    thread(() -> section.run(awaitTurn(turns, LEASE), true)),
                    thread(() -> {
                        KeyTurns.Turn turn = tryTurn(turns);
                        if (turn == null) {
                            refused.incrementAndGet();
                        } else {
                            section.run(turn, true);
                        }
                    }));
            joinAll(threads);
            assertEquals(1, section.mostOptimistic.get(), "two optimistic turns at once, or none ran");
            assertTrue(refused.get() <= 1);
            assertEquals(0, turns.keysInUse(), "a refused try left the key's queue behind");
        });
    }

    @Test
    void theModelCheckingFindsATurnAdmittedBesideAnother() {
        ScenarioThreads.assertFinds("two optimistic turns at once", () -> Lincheck.runConcurrentTest(INVOCATIONS,
                () -> exclusiveTurns(new KeyTurns(FROZEN, () -> false, KeyTurns.SeededBug.OVERTAKING), 2)));
    }

    @Test
    void theModelCheckingFindsAWaiterLeftBehind() {
        Throwable found = assertThrows(Throwable.class, () -> Lincheck.runConcurrentTest(INVOCATIONS,
                () -> exclusiveTurns(new KeyTurns(FROZEN, () -> false, KeyTurns.SeededBug.FORGETFUL), 2)));
        // the waiter parks for good: Lincheck finds every thread blocked
        assertTrue(found.getMessage().contains("Concurrent test has hung"), found.getMessage());
    }

    /** Threads that each take an optimistic turn of the key and end it: one at a time, all of them. */
    private static void exclusiveTurns(KeyTurns turns, int threadCount) {
        Section section = new Section();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < threadCount; i++) {
            threads.add(thread(() -> section.run(awaitTurn(turns, LEASE), true)));
        }
        joinAll(threads);
        assertEquals(threadCount, section.entered.get(), "a waiter never got its turn");
        assertEquals(1, section.mostOptimistic.get(), "two optimistic turns at once");
        assertEquals(0, turns.keysInUse(), "the key's queue outlived its users");
    }

    /** What runs inside a turn: counts who is inside at once, then ends the turn. */
    private static final class Section {
        final AtomicInteger entered = new AtomicInteger();
        final AtomicInteger optimistic = new AtomicInteger();
        final AtomicInteger pessimistic = new AtomicInteger();
        final AtomicInteger mostOptimistic = new AtomicInteger();
        final AtomicInteger mostPessimistic = new AtomicInteger();
        final AtomicInteger besideOptimistic = new AtomicInteger();

        void run(KeyTurns.Turn turn, boolean isOptimistic) {
            entered.incrementAndGet();
            if (isOptimistic) {
                int now = optimistic.incrementAndGet();
                mostOptimistic.accumulateAndGet(now, Math::max);
                if (now > 1 || pessimistic.get() > 0) {
                    besideOptimistic.incrementAndGet();
                }
                optimistic.decrementAndGet();
            } else {
                mostPessimistic.accumulateAndGet(pessimistic.incrementAndGet(), Math::max);
                if (optimistic.get() > 0) {
                    besideOptimistic.incrementAndGet();
                }
                pessimistic.decrementAndGet();
            }
            turn.end();
        }
    }

    private static KeyTurns.Turn awaitTurn(KeyTurns turns, HandOvers.Wish wish) {
        try {
            KeyTurns.Turn turn = turns.await(KEY, NO_END, wish);
            assertNotNull(turn, "a wait without end ended without the turn");
            return turn;
        } catch (InterruptedException unexpected) {
            throw new AssertionError(unexpected);
        }
    }

    private static KeyTurns.Turn tryTurn(KeyTurns turns) {
        try {
            return turns.await(KEY, 0, LEASE);
        } catch (InterruptedException unexpected) {
            throw new AssertionError(unexpected);
        }
    }

    private static Thread thread(Runnable body) {
        Thread thread = new Thread(body);
        thread.start();
        return thread;
    }

    private static void joinAll(List<Thread> threads) {
        for (Thread thread : threads) {
            try {
                thread.join();
            } catch (InterruptedException unexpected) {
                throw new AssertionError(unexpected);
            }
        }
    }
}
