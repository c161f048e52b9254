package io.locked.it.weld.drain;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerClosedException;
import io.locked.api.LockRequest;
import io.locked.it.weld.LockedDeployment;
import io.locked.it.weld.TestConfig;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The application stops while a {@code @Locked(onTimeout = SKIP)} job runs: the drain lets the job finish,
 * and a step of it locked on the same key runs (a re-entry takes no lock), where the closing manager used
 * to refuse it and the interceptor skipped it without a word.
 */
class DrainReentryTest {

    @AfterEach
    void clearConfig() {
        TestConfig.clear();
    }

    @Test
    void aJobsStepOnItsOwnKeyRunsWhileTheApplicationStops() throws Exception {
        TestConfig.set("locked.shutdown.drain", "30s");
        WeldContainer container = LockedDeployment.with(NightlyJob.class, NightlyStep.class).initialize();
        NightlyJob job = container.select(NightlyJob.class).get();
        NightlyStep.FINISHED.set(false);
        LockManager locks = container.select(LockManager.class).get();
        CompletableFuture<Void> running = CompletableFuture.runAsync(() -> {
            try {
                job.run();
            } catch (InterruptedException interrupted) {
                throw new IllegalStateException(interrupted);
            }
        });
        assertTrue(job.awaitInside(30), "the job never started");
        CompletableFuture<Void> stopping = CompletableFuture.runAsync(container::shutdown);
        awaitRefusal(locks);
        job.goOn();
        running.get(30, TimeUnit.SECONDS);
        stopping.get(30, TimeUnit.SECONDS);
        assertTrue(NightlyStep.FINISHED.get(), "the job's step on its own key was skipped while the application stopped");
    }

    /** Polls until the stopping application's manager refuses a new lock: its drain has begun. */
    private static void awaitRefusal(LockManager locks) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() - deadline < 0) {
            try (LockHandle granted = locks.acquire(LockRequest.of("probe:" + System.nanoTime()))) {
                // not stopping yet
            } catch (LockManagerClosedException refused) {
                return;
            }
            Thread.sleep(5); // polling for the shutdown to have begun
        }
        throw new AssertionError("the stopping application's manager kept granting locks");
    }
}
