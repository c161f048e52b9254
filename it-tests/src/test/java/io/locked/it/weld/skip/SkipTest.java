package io.locked.it.weld.skip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockRequest;
import io.locked.api.OnTimeout;
import io.locked.api.event.LockNotAcquired;
import io.locked.it.weld.EventLog;
import io.locked.it.weld.LockedDeployment;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

/** OnTimeout.SKIP: a busy lock means the method does not run and returns "nothing" for its type. */
class SkipTest {

    @Test
    void busyLockSkipsTheCall() throws Exception {
        try (WeldContainer container = LockedDeployment.with(Cleaner.class).initialize()) {
            Cleaner cleaner = container.select(Cleaner.class).get();
            LockManager locks = container.select(LockManager.class).get();
            LockHandle held = CompletableFuture.supplyAsync(() -> locks.acquire(LockRequest.of("clean"))).get();

            cleaner.clean();
            assertEquals(Optional.empty(), cleaner.cleanAndReport());
            assertNull(cleaner.cleanLater().toCompletableFuture().get(10, TimeUnit.SECONDS));
            assertEquals(0, cleaner.runs(), "a skipped method ran");
            assertEquals(3, container.select(EventLog.class).get().of(LockNotAcquired.class).stream()
                    .filter(event -> event.outcome() == OnTimeout.SKIP).count());

            CompletableFuture.runAsync(held::close).get();
            assertTrue(cleaner.cleanAndReport().isPresent(), "a free lock must let the call run");
        }
    }
}
