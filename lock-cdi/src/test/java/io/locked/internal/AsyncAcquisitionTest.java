package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockManagerClosedException;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.contract.Await;
import io.locked.internal.async.AsyncThreads;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The asynchronous calls of the lock manager: the caller is never the one that waits, the outcomes are the
 * blocking calls' own, the hold belongs to no thread, and a caller that gives up never leaves a hold behind.
 */
class AsyncAcquisitionTest {
    private static final Duration LONG = Duration.ofMinutes(5);
    private final InMemoryLockRepository store = new InMemoryLockRepository();
    private final LockManager locks = LockManagerBuilder.on(store).build();

    @AfterEach
    void close() {
        locks.close();
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void theCallerGetsAStageAtOnceWhichCompletesWhenTheKeyIsReleased(LockMode mode) throws Exception {
        LockHandle first = locks.acquire(LockRequest.of("k").mode(mode));
        CompletableFuture<LockHandle> second = locks.acquireAsync(LockRequest.of("k").mode(mode).maxWait(LONG))
                .toCompletableFuture();
        assertFalse(second.isDone(), "the key is held: the caller got a pending stage instead of waiting");
        first.close();
        LockHandle got = second.get(30, TimeUnit.SECONDS);
        assertTrue(got.token() > first.token());
        assertTrue(store.holds("k"));
        got.close();
        assertFalse(store.holds("k"));
    }

    @Test
    void aWaitThatRunsOutFailsTheStageWithTheBlockingCallsException() throws Exception {
        try (LockHandle held = locks.acquire(LockRequest.of("busy"))) {
            Throwable failure = failureOf(locks.acquireAsync(LockRequest.of("busy").maxWait(Duration.ofMillis(20))));
            assertInstanceOf(LockNotAcquiredException.class, failure, "not wrapped: the blocking call's own exception");
            assertEquals(Optional.empty(), locks.tryAcquireAsync(LockRequest.of("busy")).toCompletableFuture()
                    .get(30, TimeUnit.SECONDS));
        }
        Optional<LockHandle> free = locks.tryAcquireAsync(LockRequest.of("busy")).toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertTrue(free.isPresent());
        free.get().close();
    }

    @Test
    void theHoldBelongsToNoThreadSoTheCallerIsNotReentrantThroughIt() throws Exception {
        LockHandle async = locks.acquireAsync(LockRequest.of("k")).toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertEquals(Optional.empty(), locks.current("k"), "the caller is not inside the hold");
        assertEquals(Optional.empty(), locks.tryAcquire(LockRequest.of("k")), "a second acquisition waits like anyone else's");
        for (int i = 0; i < 3; i++) { // the default pool's idle thread, which got the hold, takes these
            assertEquals(Optional.empty(), locks.tryAcquireAsync(LockRequest.of("k")).toCompletableFuture().get(30, TimeUnit.SECONDS),
                    "the thread that got the hold is not inside it either");
        }
        CompletableFuture.runAsync(async::close).get(30, TimeUnit.SECONDS); // closed from another thread
        assertFalse(store.holds("k"));
    }

    @Test
    void aCancelWhileWaitingEndsTheWaitAndLeavesNoHold() throws Exception {
        AtomicInteger ended = new AtomicInteger();
        ExecutorService threads = Executors.newCachedThreadPool();
        LockManager counted = LockManagerBuilder.on(store).asyncExecutor(task -> threads.execute(() -> {
            task.run();
            ended.incrementAndGet();
        })).build();
        LockHandle first = counted.acquire(LockRequest.of("k"));
        CompletableFuture<LockHandle> waiting = counted.acquireAsync(LockRequest.of("k").maxWait(LONG)).toCompletableFuture();
        assertTrue(waiting.cancel(false));
        Await.until(() -> ended.get() == 1, Duration.ofSeconds(30), "the cancelled wait ends while the key is still held");
        assertTrue(first.isValid());
        first.close();
        assertFalse(store.holds("k"), "the cancelled waiter took nothing");
        counted.close();
        assertFalse(threads.isShutdown(), "an executor the user gave stays the user's");
        threads.shutdown();
    }

    @Test
    void callLockedAsyncHoldsTheKeyUntilTheWorksStageCompletes() throws Exception {
        CompletableFuture<String> work = new CompletableFuture<>();
        AtomicReference<LockHandle> given = new AtomicReference<>();
        CompletableFuture<String> outcome = locks.callLockedAsync(LockRequest.of("job"), handle -> {
            given.set(handle);
            return work;
        }).toCompletableFuture();
        Await.until(() -> given.get() != null, Duration.ofSeconds(30), "the action runs once the lock is held");
        assertTrue(store.holds("job"));
        assertFalse(outcome.isDone());
        work.complete("done");
        assertEquals("done", outcome.get(30, TimeUnit.SECONDS));
        assertFalse(store.holds("job"), "released when the work completed");
    }

    @Test
    void aFailedOrMissingWorkReleasesAndFailsTheStage() throws Exception {
        IllegalStateException broken = new IllegalStateException("broken");
        assertEquals(broken, failureOf(locks.callLockedAsync(LockRequest.of("job"), handle -> CompletableFuture.failedFuture(broken))));
        assertFalse(store.holds("job"));
        assertEquals(broken, failureOf(locks.callLockedAsync(LockRequest.of("job"), handle -> {
            throw broken;
        })));
        assertFalse(store.holds("job"));
        assertInstanceOf(IllegalStateException.class, failureOf(locks.callLockedAsync(LockRequest.of("job"), handle -> null)));
        assertFalse(store.holds("job"));
    }

    @Test
    void aCancelBeforeTheLockIsHeldMeansTheWorkNeverRuns() throws Exception {
        AtomicBoolean ran = new AtomicBoolean();
        try (LockHandle held = locks.acquire(LockRequest.of("job"))) {
            CompletableFuture<Object> outcome = locks.callLockedAsync(LockRequest.of("job").maxWait(LONG), handle -> {
                ran.set(true);
                return CompletableFuture.completedFuture(null);
            }).toCompletableFuture();
            assertTrue(outcome.cancel(false));
        }
        // the key is free now: a fresh acquisition gets it, so the cancelled one neither holds nor will run
        LockHandle next = locks.acquireAsync(LockRequest.of("job").maxWait(LONG)).toCompletableFuture().get(30, TimeUnit.SECONDS);
        next.close();
        assertFalse(ran.get());
    }

    @Test
    void manyAsynchronousWaitersOfOneKeyAreServedOneAtATime() throws Exception {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<CompletableFuture<Integer>> all = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            int n = i;
            all.add(locks.callLockedAsync(LockRequest.of("hot").maxWait(LONG), handle -> {
                most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                inside.decrementAndGet();
                return CompletableFuture.completedFuture(n);
            }).toCompletableFuture());
        }
        for (CompletableFuture<Integer> one : all) {
            one.get(60, TimeUnit.SECONDS);
        }
        assertEquals(1, most.get(), "never two holders");
        assertFalse(store.holds("hot"));
    }

    @Test
    void theDefaultThreadsAreVirtualWhereTheJvmHasThemAndNeverKeepTheJvmAlive() throws Exception {
        Thread thread = locks.callLockedAsync(LockRequest.of("k"), handle -> CompletableFuture.completedFuture(Thread.currentThread()))
                .toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertTrue(thread.getName().startsWith("locked-async-"), thread.getName());
        assertTrue(thread.isDaemon(), "virtual threads are daemons; the platform pool's are made so");
        assertEquals(AsyncThreads.virtualThreadsAvailable(), isVirtual(thread));
    }

    @Test
    void theActionRunsOnTheThreadThatGotTheHoldEvenWhenTheHoldCameBeforeTheCallReturned() throws Exception {
        // returns only once the acquisition is done: the hold is got before callLockedAsync chains the action, as a
        // virtual thread on a free key may do
        Executor doneBeforeReturning = task -> {
            Thread acquirer = new Thread(task, "acquirer");
            acquirer.start();
            try {
                acquirer.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        try (LockManager quick = LockManagerBuilder.on(store).asyncExecutor(doneBeforeReturning).build()) {
            Thread ran = quick.callLockedAsync(LockRequest.of("quick"), handle -> CompletableFuture.completedFuture(Thread.currentThread()))
                    .toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertEquals("acquirer", ran.getName(), "the action ran on the caller's thread, not on the one that got the hold");
        }
    }

    @Test
    void aClosedManagerFailsTheStageAndANullRequestFailsAtOnce() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> locks.acquireAsync(null));
        assertThrows(IllegalArgumentException.class, () -> locks.callLockedAsync(LockRequest.of("k"), null));
        locks.close();
        assertInstanceOf(LockManagerClosedException.class, failureOf(locks.acquireAsync(LockRequest.of("k"))));
    }

    private static boolean isVirtual(Thread thread) {
        try {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(thread);
        } catch (ReflectiveOperationException beforeJava21) {
            return false;
        }
    }

    private static Throwable failureOf(CompletionStage<?> stage) throws Exception {
        return stage.handle((value, failure) -> failure).toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
}
