package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Closing a manager with a drain: it stops granting locks at once, lets the locks still held be
 * released within the bound, and only then stops the watchdog; past the bound it closes anyway.
 */
class DrainOnCloseTest {
    private final InMemoryLockRepository store = new InMemoryLockRepository();

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void closeWaitsForTheHolderToReleaseAndGrantsNothingMeanwhile(LockMode mode) throws Exception {
        LockManager locks = LockManagerBuilder.on(store).drainOnClose(Duration.ofMinutes(1)).build();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Boolean> job = CompletableFuture.supplyAsync(() -> {
            try (LockHandle handle = locks.acquire(LockRequest.of("job").mode(mode).leaseFor(Duration.ofMillis(300)))) {
                held.countDown();
                finish.await();
                return handle.isValid(); // its lease was renewed while the manager drained
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(held.await(10, TimeUnit.SECONDS));
        CompletableFuture<Void> closing = CompletableFuture.runAsync(locks::close);
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
        CompletableFuture.runAsync(locks::close).get(10, TimeUnit.SECONDS);
        assertTrue(store.holds("stuck"), "close does not release a lock its holder still has");
        kept.close();
    }

    // the manager refuses new locks from the moment close begins
    private static void awaitRefusal(LockManager locks) throws InterruptedException {
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
