package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.spi.PessimisticHold;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How the core uses a store that passes row locks on ({@link PessimisticHold#handOver}), on a stand-in store
 * whose hand-over passes the same in-memory row lock on with the next token: the waiting thread gets the
 * hold with the next token and sends no lock statement of its own, the releasing holder does not release what
 * it passed on, and the last holder releases it once. And where the hand-over fails, the releasing holder
 * releases its hold as without one, and the waiting thread takes the key from the store. The manager's run
 * bound ends a run, and a bound of zero passes nothing on.
 */
class RowHandOverWiringTest {
    static final LockRequest REQUEST = LockRequest.of("handed").mode(LockMode.PESSIMISTIC)
            .maxWait(Duration.ofSeconds(30));

    @Test
    void theWaitingThreadGetsTheRowWithTheNextTokenAndTheLastHolderReleasesItOnce() throws Exception {
        RowPassingStore store = new RowPassingStore();
        try (LockManager locks = LockManagerBuilder.on(store).build()) {
            LockHandle first = locks.acquire(REQUEST);
            CompletableFuture<Long> next = waiterOf(locks);

            first.close();

            assertEquals(first.token() + 1, next.get(30, TimeUnit.SECONDS), "the waiting thread's token");
            assertEquals(1, store.lockStatements.get(), "the waiting thread sent a lock statement of its own");
            assertEquals(1, store.handOvers.get(), "hand-overs");
            assertEquals(1, store.releases.get(), "the row was released other than once, by its last holder");
        }
    }

    @Test
    void whereTheHandOverFailsTheHolderReleasesAndTheWaitingThreadTakesTheKeyFromTheStore() throws Exception {
        RowPassingStore store = new RowPassingStore();
        store.failHandOvers = true;
        assertTheWaitingThreadTookTheKeyFromTheStore(store, LockManagerBuilder.on(store));
    }

    /**
     * The manager begins to close, draining, while a thread waits behind the holder. The holder's release may pass
     * the row on, but the drain grants nothing new: the waiting thread is refused, the row it may have been handed
     * is released at once, and the drain ends with the holder's release, leaving the key free in the store.
     */
    @Test
    void aThreadWaitingWhenTheDrainBeginsIsRefusedAndTheRowIsFreeAfterIt() throws Exception {
        RowPassingStore store = new RowPassingStore();
        LockManager locks = LockManagerBuilder.on(store).drainOnClose(Duration.ofSeconds(30)).build();
        LockHandle first = locks.acquire(REQUEST);
        CompletableFuture<Long> next = waiterOf(locks);
        CompletableFuture<Void> closing = CompletableFuture.runAsync(locks::close);
        DrainOnCloseTest.awaitRefusal(locks); // its probes of other keys, taken before the close began, count as releases
        int releasesBefore = store.releases.get();

        first.close();

        java.util.concurrent.ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class, () -> next.get(30, TimeUnit.SECONDS));
        assertTrue(refused.getCause() instanceof io.locked.api.LockManagerClosedException, refused.getCause().toString());
        closing.get(30, TimeUnit.SECONDS);
        assertEquals(1, store.handOvers.get(), "hand-overs: the release passed the row to the waiting thread");
        assertEquals(1, store.releases.get() - releasesBefore, "releases: the handed row, given back by the closed manager");
        try (LockManager another = LockManagerBuilder.on(store).build()) {
            assertTrue(another.tryAcquire(REQUEST).map(held -> {
                held.close();
                return true;
            }).orElse(false), "the key was left held after the drain");
        }
    }

    @Test
    void aManagerWhoseRunIsZeroPassesNoRowOn() throws Exception {
        RowPassingStore store = new RowPassingStore();
        assertTheWaitingThreadTookTheKeyFromTheStore(store, LockManagerBuilder.on(store).handOverRowsFor(Duration.ZERO));
    }

    /** A holder releases while a thread waits; the store passes nothing on, and the thread locks the key itself. */
    private static void assertTheWaitingThreadTookTheKeyFromTheStore(RowPassingStore store, LockManagerBuilder manager)
            throws Exception {
        try (LockManager locks = manager.build()) {
            LockHandle first = locks.acquire(REQUEST);
            CompletableFuture<Long> next = waiterOf(locks);

            first.close();

            assertTrue(next.get(30, TimeUnit.SECONDS) > first.token(), "the waiting thread's token");
            assertEquals(2, store.lockStatements.get(), "lock statements");
            assertEquals(0, store.handOvers.get(), "hand-overs");
            assertEquals(2, store.releases.get(), "releases: the first holder's, then the second's");
        }
    }

    /**
     * Two threads wait behind a holder. With a run of a nanosecond, the row passes once, from the holder that
     * took it at the store; the thread it passed to has run past the bound, releases, and the last thread takes
     * the key from the store. With a run of ten seconds, the row passes twice and is taken once.
     */
    @Test
    void aRunEndsAtTheManagersBoundAndTheNextThreadTakesTheKeyFromTheStore() throws Exception {
        assertEquals(java.util.List.of(2, 1, 2), chainOfThree(Duration.ofNanos(1)), "lock statements, hand-overs, releases");
        assertEquals(java.util.List.of(1, 2, 1), chainOfThree(Duration.ofSeconds(10)), "lock statements, hand-overs, releases");
    }

    @Test
    void theRunIsZeroUpToTenSeconds() {
        LockManagerBuilder builder = LockManagerBuilder.on(new RowPassingStore());
        for (Duration refused : new Duration[] {null, Duration.ofNanos(-1), Duration.ofSeconds(10).plusNanos(1)}) {
            IllegalArgumentException thrown = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> builder.handOverRowsFor(refused));
            assertEquals("The run of row hand-overs must be zero up to 10 s, was " + refused, thrown.getMessage());
        }
    }

    private static java.util.List<Integer> chainOfThree(Duration run) throws Exception {
        RowPassingStore store = new RowPassingStore();
        try (LockManager locks = LockManagerBuilder.on(store).handOverRowsFor(run).build()) {
            LockHandle first = locks.acquire(REQUEST);
            CompletableFuture<Long> second = waiterOf(locks);
            CompletableFuture<Long> third = waiterOf(locks);

            first.close();

            assertEquals(first.token() + 1, second.get(30, TimeUnit.SECONDS), "the second thread's token, handed over");
            // the stand-in store draws its own next token, knowing nothing of the hand-over's (a real one reads the clock)
            assertTrue(third.get(30, TimeUnit.SECONDS) > first.token(), "the last thread's token");
            return java.util.List.of(store.lockStatements.get(), store.handOvers.get(), store.releases.get());
        }
    }

    /** A thread that waits for the key, once it waits in the JVM's queue; its token, once it got and released the key. */
    static CompletableFuture<Long> waiterOf(LockManager locks) throws InterruptedException {
        CountDownLatch asking = new CountDownLatch(1);
        CompletableFuture<Long> token = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            asking.countDown();
            long got;
            try (LockHandle held = locks.acquire(REQUEST)) {
                got = held.token();
            } catch (RuntimeException failed) {
                token.completeExceptionally(failed);
                return;
            }
            token.complete(got); // once released: the releases are counted by then
        });
        waiter.start();
        asking.await();
        // the waiter is in the queue once its thread parks there: the first holder's close must find it waiting
        while (waiter.getState() != Thread.State.WAITING && waiter.getState() != Thread.State.TIMED_WAITING
                && !token.isDone()) {
            Thread.onSpinWait();
        }
        return token;
    }
}
