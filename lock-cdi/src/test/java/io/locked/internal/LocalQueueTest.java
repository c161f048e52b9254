package io.locked.internal;

import io.locked.internal.exclusive.KeyTurns;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockInterruptedException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Threads of one manager waiting for one key queue in the JVM; only the first goes to the store. */
class LocalQueueTest {
    private final InMemoryLockRepository store = new InMemoryLockRepository();
    private final LockManager locks = LockManagerBuilder.on(store).build();
    private final ExecutorService threads = Executors.newFixedThreadPool(8);

    @AfterEach
    void close() {
        threads.shutdownNow();
        locks.close();
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void onlyTheHeadOfTheQueueCompetesAtTheStore(LockMode mode) throws Exception {
        int threadCount = 8;
        int cycles = 50;
        int[] counter = {0};
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < threadCount; t++) {
            workers.add(threads.submit(() -> {
                for (int i = 0; i < cycles; i++) {
                    try (LockHandle ignored = locks.acquire(LockRequest.of("hot").mode(mode).maxWait(Duration.ofSeconds(30)))) {
                        counter[0]++;
                    }
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(60, TimeUnit.SECONDS);
        }
        assertEquals(threadCount * cycles, counter[0]);
        // optimistic: only the head; pessimistic: the head and the next, queued at the database behind the holder
        int allowed = mode == LockMode.OPTIMISTIC ? 1 : KeyTurns.PESSIMISTIC_TURNS;
        assertTrue(store.mostCallsAtOnce() <= allowed, store.mostCallsAtOnce() + " threads of the JVM were at the store for one key");
        // a local hand-over finds the row free, or passes the lease on: one store call per acquisition
        assertEquals(threadCount * cycles, store.storeCalls(), "store calls per acquisition under local contention");
    }

    @Test
    void anOptimisticHolderHandsItsLeaseToTheNextLocalWaiterInOneStoreCall() throws Exception {
        LockRequest request = LockRequest.of("passed").mode(LockMode.OPTIMISTIC).maxWait(Duration.ofSeconds(30));
        LockHandle held = locks.acquire(request);
        AtomicReference<Thread> waiterThread = new AtomicReference<>();
        Future<Long> waiter = threads.submit(() -> {
            waiterThread.set(Thread.currentThread());
            try (LockHandle next = locks.acquire(request)) {
                assertTrue(next.isValid());
                return next.token();
            }
        });
        awaitParked(waiterThread);
        int callsBefore = store.storeCalls();
        held.close();
        long next = waiter.get(30, TimeUnit.SECONDS);
        assertTrue(next > held.token(), "the handed-over lease has a higher token");
        assertEquals(1, store.handOvers(), "the lease was not handed over");
        assertEquals(callsBefore + 1, store.storeCalls(), "the waiter went to the store itself");
        locks.tryAcquire(request).orElseThrow().close();
    }

    @Test
    void aPessimisticWaiterOrADifferentLeaseIsNotHandedALease() throws Exception {
        LockRequest optimistic = LockRequest.of("not-passed").mode(LockMode.OPTIMISTIC).maxWait(Duration.ofSeconds(30));
        for (LockRequest other : List.of(optimistic.mode(LockMode.PESSIMISTIC), optimistic.lease(Duration.ofSeconds(7)))) {
            LockHandle held = locks.acquire(optimistic);
            AtomicReference<Thread> waiterThread = new AtomicReference<>();
            Future<Long> waiter = threads.submit(() -> {
                waiterThread.set(Thread.currentThread());
                try (LockHandle next = locks.acquire(other)) {
                    return next.token();
                }
            });
            awaitParked(waiterThread);
            held.close();
            assertTrue(waiter.get(30, TimeUnit.SECONDS) > held.token());
        }
        assertEquals(0, store.handOvers(), "a lease was handed to a waiter that asked for something else");
    }

    private static void awaitParked(AtomicReference<Thread> thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((thread.get() == null || thread.get().getState() != Thread.State.TIMED_WAITING)
                && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(Thread.State.TIMED_WAITING, thread.get().getState(), "the waiter never queued");
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aWaitInTheQueueIsBoundedAndTryAcquireDoesNotQueue(LockMode mode) throws Exception {
        LockRequest request = LockRequest.of("busy").mode(mode).maxWait(Duration.ofMillis(200));
        try (LockHandle held = locks.acquire(request)) {
            assertTrue(CompletableFuture.supplyAsync(() -> locks.tryAcquire(request)).get(10, TimeUnit.SECONDS).isEmpty());
            Future<Boolean> waiter = threads.submit(() -> {
                try {
                    locks.acquire(request).close();
                    return true;
                } catch (io.locked.api.LockNotAcquiredException expected) {
                    return false;
                }
            });
            assertEquals(false, waiter.get(10, TimeUnit.SECONDS), "acquired a key held by another thread");
            assertTrue(held.isValid());
        }
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void anInterruptedWaitSaysSoAndKeepsTheInterrupt(LockMode mode) throws Exception {
        LockRequest request = LockRequest.of("interrupted").mode(mode).maxWait(Duration.ofMinutes(1));
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        AtomicReference<Boolean> flagKept = new AtomicReference<>();
        try (LockHandle held = locks.acquire(request)) {
            // a pessimistic key lets one waiter queue at the database: the interrupted one waits in the JVM
            Future<?> atTheDatabase = mode == LockMode.PESSIMISTIC
                    ? threads.submit(() -> locks.acquire(request).close()) : CompletableFuture.completedFuture(null);
            long queued = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (mode == LockMode.PESSIMISTIC && store.callsInFlight() < 1 && System.nanoTime() < queued) {
                Thread.onSpinWait();
            }
            assertTrue(mode == LockMode.OPTIMISTIC || store.callsInFlight() == 1, "no waiter at the database");
            Thread waiter = new Thread(() -> {
                try {
                    locks.acquire(request).close();
                } catch (Throwable failure) {
                    outcome.set(failure);
                    flagKept.set(Thread.currentThread().isInterrupted());
                }
            });
            waiter.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (waiter.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            waiter.interrupt();
            waiter.join(10_000);
            assertTrue(outcome.get() instanceof LockInterruptedException, "got " + outcome.get());
            assertEquals("interrupted", ((LockInterruptedException) outcome.get()).key());
            assertEquals(Boolean.TRUE, flagKept.get(), "the interrupt flag was cleared");
            assertTrue(held.isValid());
            held.close();
            atTheDatabase.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void anInterruptedBackoffAgainstAnotherJvmSaysSo() throws Exception {
        LockManager otherJvm = LockManagerBuilder.on(store).build();
        LockRequest request = LockRequest.of("remote").mode(LockMode.OPTIMISTIC).maxWait(Duration.ofMinutes(1));
        try (LockHandle held = otherJvm.acquire(request)) {
            Thread.currentThread().interrupt();
            assertThrows(LockInterruptedException.class, () -> locks.acquire(request));
            assertTrue(Thread.interrupted(), "the interrupt flag was cleared");
        } finally {
            otherJvm.close();
        }
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aClosedManagerRefusesToAcquireAndLeavesNoLeaseTaken(LockMode mode) {
        LockManager closed = LockManagerBuilder.on(store).build();
        closed.close();
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> closed.acquire(LockRequest.of("after-close").mode(mode)));
        assertTrue(refused.getMessage().contains("after-close"), refused.getMessage());
        locks.tryAcquire(LockRequest.of("after-close").mode(mode)).orElseThrow().close();
    }
}
