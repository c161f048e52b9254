package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Closing a manager with a drain: it stops granting locks at once, lets the locks still held be
 * released within the bound, and only then stops the watchdog; past the bound it closes anyway.
 */
class DrainOnCloseTest {
    private final InMemoryLockRepository store = new InMemoryLockRepository();
    // threads of its own: the holder's job and close block at the same time, and from Java 25 on the default
    // executor of CompletableFuture is the common pool even where it has one thread (a two-core machine)
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void closeWaitsForTheHolderToReleaseAndGrantsNothingMeanwhile(LockMode mode) throws Exception {
        LockManager locks = LockManagerBuilder.on(store).drainOnClose(Duration.ofMinutes(1)).build();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Boolean> job = CompletableFuture.supplyAsync(() -> {
            try (LockHandle handle = locks.acquire(LockRequest.of("job").mode(mode).lease(Duration.ofMillis(300)))) {
                held.countDown();
                finish.await();
                return handle.isValid(); // its lease was renewed while the manager drained
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, threads);
        assertTrue(held.await(10, TimeUnit.SECONDS));
        CompletableFuture<Void> closing = CompletableFuture.runAsync(locks::close, threads);
        awaitRefusal(locks);
        assertFalse(closing.isDone(), "close returned while a lock was still held");
        assertTrue(store.holds("job"), "the holder still has the key while the manager drains");

        finish.countDown();
        assertTrue(job.get(10, TimeUnit.SECONDS), "the holder kept a valid lock through the drain, past its lease");
        closing.get(10, TimeUnit.SECONDS);
        assertFalse(store.holds("job"), "the holder's release freed the key");
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void pastTheBoundCloseReturnsWithTheLockStillHeld(LockMode mode) throws Exception {
        LockManager locks = LockManagerBuilder.on(store).drainOnClose(Duration.ofMillis(200)).build();
        LockHandle kept = locks.acquire(LockRequest.of("stuck").mode(mode));
        CompletableFuture.runAsync(locks::close, threads).get(10, TimeUnit.SECONDS);
        assertTrue(store.holds("stuck"), "close does not release a lock its holder still has");
        kept.close();
    }

    /**
     * The drain lets holders finish, and finishing may enter their own key again (a {@code @Locked} method
     * calling another on the same key): a re-entry takes no lock, so the closing manager grants it, in each
     * form a thread can re-enter; a new acquisition of another thread is refused meanwhile.
     */
    @ParameterizedTest
    @MethodSource("reentries")
    void aHolderEntersItsOwnKeyAgainWhileTheManagerDrains(String form, LockRequest outer, LockRequest inner) throws Exception {
        LockManager locks = LockManagerBuilder.on(store).drainOnClose(Duration.ofMinutes(1)).build();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch closing = new CountDownLatch(1);
        CompletableFuture<Boolean> job = CompletableFuture.supplyAsync(() -> {
            try (LockHandle outerHold = locks.acquire(outer)) {
                held.countDown();
                closing.await();
                try (LockHandle innerHold = locks.acquire(inner)) {
                    return innerHold.isValid() && innerHold.token() == outerHold.token();
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, threads);
        assertTrue(held.await(10, TimeUnit.SECONDS));
        CompletableFuture<Void> closed = CompletableFuture.runAsync(locks::close, threads);
        awaitRefusal(locks);
        closing.countDown();
        assertTrue(job.get(10, TimeUnit.SECONDS), form + ": the holder entered its own key again while the manager drained");
        closed.get(10, TimeUnit.SECONDS);
    }

    static Stream<Arguments> reentries() {
        LockRequest read = LockRequest.of("reentered").mode(LockMode.OPTIMISTIC).read();
        LockRequest write = LockRequest.of("reentered").mode(LockMode.OPTIMISTIC).write();
        LockRequest permit = LockRequest.of("reentered").permits(3);
        return Stream.of(
                Arguments.of("exclusive, pessimistic", LockRequest.of("reentered"), LockRequest.of("reentered")),
                Arguments.of("exclusive, optimistic", LockRequest.of("reentered").mode(LockMode.OPTIMISTIC),
                        LockRequest.of("reentered").mode(LockMode.OPTIMISTIC)),
                Arguments.of("a read inside a read", read, read),
                Arguments.of("a write inside a write", write, write),
                Arguments.of("a read inside a write", write, read),
                Arguments.of("a permit inside a permit", permit, permit));
    }

    // the manager refuses new locks from the moment close begins
    static void awaitRefusal(LockManager locks) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() - deadline < 0) {
            LockHandle granted;
            try {
                granted = locks.acquire(LockRequest.of("other:" + System.nanoTime()));
            } catch (IllegalStateException refused) {
                assertTrue(refused.getMessage().contains("closed"), refused.getMessage());
                return;
            }
            granted.close(); // close has not begun yet
            Thread.sleep(5); // polling for close to have begun
        }
        throw new AssertionError("the closing manager kept granting locks");
    }
}
