package io.locked.it.weld.async;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockManager;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.api.event.LockReleased;
import io.locked.it.weld.EventLog;
import io.locked.it.weld.LockedDeployment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

/** A CompletionStage-returning method keeps its lock until the stage completes, normally or not. */
class AsyncHoldTest {

    @Test
    void lockIsHeldUntilTheStageCompletes() throws Exception {
        try (WeldContainer container = LockedDeployment.with(Exporter.class).initialize()) {
            Exporter exporter = container.select(Exporter.class).get();
            LockManager locks = container.select(LockManager.class).get();
            EventLog log = container.select(EventLog.class).get();

            CompletableFuture<String> work = new CompletableFuture<>();
            CompletionStage<String> result = exporter.export(work);
            assertFalse(tryElsewhere(locks), "the lock was released before the stage completed");
            assertTrue(log.of(LockReleased.class).isEmpty());

            CompletableFuture.runAsync(() -> work.complete("done")).get();
            assertEquals("done", result.toCompletableFuture().get(10, TimeUnit.SECONDS));
            assertEquals(1, log.of(LockReleased.class).size());
            assertTrue(tryElsewhere(locks), "the lock was not released when the stage completed");

            CompletableFuture<String> failing = new CompletableFuture<>();
            CompletionStage<String> failed = exporter.export(failing);
            assertFalse(tryElsewhere(locks));
            failing.completeExceptionally(new IllegalStateException("export failed"));
            ExecutionException error = assertThrows(ExecutionException.class,
                    () -> failed.toCompletableFuture().get(10, TimeUnit.SECONDS));
            assertEquals("export failed", error.getCause().getMessage());
            assertTrue(tryElsewhere(locks), "a failed stage must release the lock too");
        }
    }

    @Test
    void theCallingThreadIsNoLongerAHolderOnceTheMethodReturnedItsStage() throws Exception {
        try (WeldContainer container = LockedDeployment.with(Exporter.class).initialize()) {
            Exporter exporter = container.select(Exporter.class).get();
            CompletableFuture<String> running = new CompletableFuture<>();
            CompletionStage<String> first = exporter.export(running);
            // same thread, lock still held by the running stage: it must wait, and here run out of wait
            assertThrows(LockNotAcquiredException.class, () -> exporter.exportIfFree(CompletableFuture.completedFuture("second")));
            running.complete("first");
            assertEquals("first", first.toCompletableFuture().get(10, TimeUnit.SECONDS));
            assertEquals("second", exporter.exportIfFree(CompletableFuture.completedFuture("second"))
                    .toCompletableFuture().get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aStageReturnedAsObjectIsHeldUntilItCompletes() throws Exception {
        try (WeldContainer container = LockedDeployment.with(Exporter.class).initialize()) {
            Exporter exporter = container.select(Exporter.class).get();
            LockManager locks = container.select(LockManager.class).get();
            CompletableFuture<String> work = new CompletableFuture<>();
            Object result = exporter.exportAnything(work);
            assertFalse(tryElsewhere(locks), "the lock was released before the stage completed");
            work.complete("done");
            assertEquals("done", ((CompletionStage<?>) result).toCompletableFuture().get(10, TimeUnit.SECONDS));
            assertTrue(tryElsewhere(locks));
            assertEquals("plain", exporter.exportAnything("plain"));
            assertTrue(tryElsewhere(locks));
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> exporter.exportAnything(new java.util.concurrent.FutureTask<>(() -> "x")));
            assertTrue(refused.getMessage().contains("java.util.concurrent.Future"), refused.getMessage());
            assertTrue(tryElsewhere(locks), "a refused result must still release the lock");
        }
    }

    private static boolean tryElsewhere(LockManager locks) throws Exception {
        return CompletableFuture.supplyAsync(() -> locks.tryAcquire(LockRequest.of("export"))
                .map(handle -> {
                    handle.close();
                    return true;
                }).orElse(false)).get(30, TimeUnit.SECONDS);
    }
}
