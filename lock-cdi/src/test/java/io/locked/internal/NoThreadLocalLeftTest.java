package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.testing.InMemoryLockRepository;
import io.locked.testing.ThreadLocalValues;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A thread that took and released locks keeps nothing of Locked in its thread-locals: on a server, such a value
 * on a pooled thread keeps the undeployed application's class loader alive (Payara reports it as a leak).
 * The Weld side: {@code NoThreadLocalLeftWeldTest}.
 */
class NoThreadLocalLeftTest {
    private final LockManager locks = LockManagerBuilder.on(new InMemoryLockRepository()).build();

    @AfterEach
    void close() {
        locks.close();
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void acquireReenterAndRelease(LockMode mode) throws Exception {
        LockRequest request = LockRequest.of("export").mode(mode);
        List<String> inside = leftOnThreadAfter(() -> {
            try (LockHandle outer = locks.acquire(request); LockHandle nested = locks.acquire(request)) {
                assertEquals(outer.token(), nested.token(), "not re-entered");
                return ThreadLocalValues.lockedValuesOf(Thread.currentThread());
            }
        });
        assertEquals(List.of(), inside, "not even while inside a lock: a thread's scope is the manager's");
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void everyWayOfTakingALock(LockMode mode) throws Exception {
        LockRequest request = LockRequest.of("report").mode(mode);
        leftOnThreadAfter(() -> {
            locks.current();
            locks.current("report");
            locks.callLocked(request, () -> locks.current().orElseThrow().token());
            locks.tryAcquire(request).orElseThrow().close();
            locks.acquire(request.permits(3)).close();
            // the in-memory store has no shared row locks: read/write locks are optimistic here
            locks.acquire(request.mode(LockMode.OPTIMISTIC).read()).close();
            locks.acquire(request.mode(LockMode.OPTIMISTIC).write()).close();
            return List.of();
        });
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aHoldClosedByAnotherThread(LockMode mode) throws Exception {
        LockRequest request = LockRequest.of("handed").mode(mode);
        leftOnThreadAfter(() -> {
            LockHandle held = locks.acquire(request);
            CompletableFuture.runAsync(held::close).get(10, TimeUnit.SECONDS);
            return List.of();
        });
    }

    /**
     * Runs the work on a thread of its own and asserts that the thread kept no value of Locked's.
     *
     * @return what the work returned
     */
    private static List<String> leftOnThreadAfter(Callable<List<String>> work) throws Exception {
        AtomicReference<List<String>> left = new AtomicReference<>();
        FutureTask<List<String>> task = new FutureTask<>(() -> {
            try {
                return work.call();
            } finally {
                left.set(ThreadLocalValues.lockedValuesOf(Thread.currentThread()));
            }
        });
        Thread thread = new Thread(task, "locks-then-pooled");
        thread.start();
        List<String> returned = task.get(30, TimeUnit.SECONDS);
        thread.join();
        assertEquals(List.of(), left.get(), "thread-local values of Locked's left on the thread");
        return returned;
    }
}
