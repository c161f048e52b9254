package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Reentrancy means "inside the lock's own scope", never "this thread once acquired the key". */
class ReentrancyTest {
    private final InMemoryLockRepository store = new InMemoryLockRepository();
    private final LockManager locks = LockManagerBuilder.on(store).build();

    @AfterEach
    void close() {
        locks.close();
    }

    private static LockRequest request(LockMode mode) {
        return LockRequest.of("export").mode(mode).maxWait(Duration.ofMillis(300));
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aThreadThatHandedItsHandleOverWaitsLikeAnyoneElse(LockMode mode) throws Exception {
        LockHandle first = locks.acquire(request(mode)).handOver();
        CompletableFuture<Void> asyncWork = new CompletableFuture<>();
        CompletableFuture<Void> closedLater = asyncWork.thenRunAsync(first::close);

        assertFalse(locks.tryAcquire(request(mode)).isPresent(), "the thread re-entered a lock it had handed over");
        assertThrows(LockNotAcquiredException.class, () -> locks.acquire(request(mode)));
        assertTrue(first.isValid(), "handing over must keep the lock held");

        asyncWork.complete(null);
        closedLater.get(10, TimeUnit.SECONDS);
        try (LockHandle next = locks.acquire(request(mode))) {
            assertTrue(next.token() > first.token(), "not a new acquisition");
        }
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aNestedHandleHandedOverDoesNotKeepTheThreadInsideAfterTheOuterCloses(LockMode mode) {
        LockHandle outer = locks.acquire(request(mode));
        LockHandle inner = locks.acquire(request(mode));
        assertEquals(outer.token(), inner.token(), "the nested acquisition is reentrant");
        inner.handOver();
        outer.close();
        assertTrue(inner.isValid(), "the handed-over hold keeps the row");
        assertFalse(locks.tryAcquire(request(mode)).isPresent(),
                "after its scope closed, the thread re-entered a hold that now belongs to other code");
        inner.close();
        locks.tryAcquire(request(mode)).orElseThrow().close();
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aHandleClosedByAnotherThreadTakesTheThreadOutOfScope(LockMode mode) throws Exception {
        LockHandle first = locks.acquire(request(mode));
        CompletableFuture.runAsync(first::close).get(10, TimeUnit.SECONDS);
        try (LockHandle next = locks.acquire(request(mode))) {
            assertNotEquals(first.token(), next.token(), "re-entered a closed acquisition");
            assertTrue(next.isValid());
        }
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void reentryRacingTheLastCloseNeverRevivesAFinishedAcquisition(LockMode mode) throws Exception {
        for (int i = 0; i < 500; i++) {
            LockHandle held = locks.acquire(request(mode));
            CompletableFuture<Void> closing = CompletableFuture.runAsync(held::close);
            Optional<LockHandle> again = locks.tryAcquire(request(mode));
            closing.get(10, TimeUnit.SECONDS);
            if (again.isPresent()) {
                LockHandle handle = again.get();
                if (handle.token() == held.token()) {
                    // entered before the close: the row must still be held for it
                    assertTrue(handle.isValid(), "a nested handle on a released acquisition");
                    assertFalse(CompletableFuture.supplyAsync(() -> locks.tryAcquire(request(mode)).isPresent())
                            .get(10, TimeUnit.SECONDS), "the row was released under a nested handle");
                }
                handle.close();
            }
        }
        assertEquals(0, store.doubleReleases(), "a hold was released twice");
    }

    @Test
    void aLostLockIsNotReenteredButAcquiredAfresh() throws Exception {
        LockRequest shortLease = LockRequest.of("lost").mode(LockMode.OPTIMISTIC).lease(Duration.ofMillis(200))
                .maxWait(Duration.ofSeconds(5));
        LockHandle outer = locks.acquire(shortLease);
        store.cutRenewals();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (outer.isValid() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertFalse(outer.isValid(), "the lease was never lost");
        LockHandle again = locks.acquire(shortLease);
        assertTrue(again.token() > outer.token(), "re-entered a lost lock instead of acquiring it afresh");
        assertTrue(again.isValid());
        assertThrows(LockLostException.class, outer::close);
        assertTrue(again.isValid(), "closing the lost outer hold released the new acquisition");
        again.close();
    }

    @Test
    void closingTwiceAndHandingOverAClosedHandleDoNothing() {
        LockHandle handle = locks.acquire(request(LockMode.PESSIMISTIC));
        handle.close();
        handle.close();
        handle.handOver();
        assertEquals(0, store.doubleReleases());
        locks.tryAcquire(request(LockMode.PESSIMISTIC)).orElseThrow().close();
    }

    @Test
    void currentShowsTheLockThisThreadIsInsideOf() throws Exception {
        assertTrue(locks.current().isEmpty());
        String seen = locks.callLocked(LockRequest.of("report"), () -> {
            LockHandle current = locks.current().orElseThrow();
            assertEquals(current.token(), locks.current("report").orElseThrow().token());
            assertTrue(CompletableFuture.supplyAsync(locks::current).get(10, TimeUnit.SECONDS).isEmpty(),
                    "another thread is not inside this scope");
            current.close(); // a view: owns no hold
            assertFalse(CompletableFuture.supplyAsync(() -> locks.tryAcquire(LockRequest.of("report")).isPresent())
                    .get(10, TimeUnit.SECONDS), "closing the view released the lock");
            return current.key();
        });
        assertEquals("report", seen);
        assertTrue(locks.current("report").isEmpty());
    }
}
