package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.locked.api.LockException;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockStoreUnavailableException;
import io.locked.api.Locked;
import io.locked.api.OnTimeout;
import io.locked.contract.DelegatingRepository;
import io.locked.internal.cdi.LockEvents;
import io.locked.internal.cdi.LockManagerProducer;
import io.locked.internal.cdi.LockedExtension;
import io.locked.internal.cdi.LockedInterceptor;
import io.locked.internal.cdi.LockedMethods;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.NoConnectionException;
import io.locked.testing.InMemoryLockRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The CDI recipe of docs/scheduled-jobs.md for a fixed-rate executor, beside the recipe it replaced:
 * the store first has no free connection, then fails, then comes back. The recipe's schedule
 * ({@code SKIP_ANY}, and a catch of {@code LockException} in the task) loses those ticks and runs the
 * job again afterwards; the old one ({@code SKIP}, nothing caught) ended at the first of them, for
 * good. Real time only paces the ticks: every step waits for a count of ticks, never for a duration.
 */
@EnableWeld
class ScheduledRecipeWeldTest {
    private enum Store { UP, NO_CONNECTION, DOWN }

    private static volatile Store store = Store.UP;

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(new Weld()
            .disableDiscovery()
            .addExtension(new LockedExtension())
            .addBeanClasses(LockedInterceptor.class, LockedMethods.class, LockEvents.class, LockManagerProducer.class,
                    Infrastructure.class, Cleanup.class))
            .build();

    @Inject
    Cleanup cleanup;

    private final ScheduledExecutorService executor = Executors.newScheduledThreadPool(2);

    @AfterEach
    void stop() {
        executor.shutdownNow();
        store = Store.UP;
    }

    @ApplicationScoped
    static class Infrastructure {
        @Produces
        @ApplicationScoped
        LockRepository repository() {
            return new DelegatingRepository(new InMemoryLockRepository()) {
                @Override
                public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
                    switch (store) {
                        case NO_CONNECTION -> throw new NoConnectionException("every connection of the pool is in use");
                        case DOWN -> throw new LockStoreUnavailableException(key, "the database does not answer", null);
                        default -> {
                            return super.takeLease(key, owner, holder, lease, dbWait);
                        }
                    }
                }
            };
        }
    }

    @ApplicationScoped
    static class Cleanup {
        private final AtomicInteger runs = new AtomicInteger();
        private final AtomicInteger oldRuns = new AtomicInteger();

        /** As the recipe says. */
        @Locked(value = "cleanup", mode = LockMode.OPTIMISTIC, maxWait = "0s", onTimeout = OnTimeout.SKIP_ANY)
        void cleanup() {
            runs.incrementAndGet();
        }

        /** As the recipe said before. */
        @Locked(value = "old-cleanup", mode = LockMode.OPTIMISTIC, maxWait = "0s", onTimeout = OnTimeout.SKIP)
        void oldCleanup() {
            oldRuns.incrementAndGet();
        }

        int runs() {
            return runs.get();
        }

        int oldRuns() {
            return oldRuns.get();
        }
    }

    @Test
    void anOutageCostsTheRecipesScheduleTicksAndEndedTheOldOne() throws Exception {
        AtomicInteger ticks = new AtomicInteger();
        AtomicInteger lostTicks = new AtomicInteger();
        ScheduledFuture<?> recipe = executor.scheduleAtFixedRate(() -> {
            ticks.incrementAndGet();
            try {
                cleanup.cleanup();
            } catch (LockException outage) {
                lostTicks.incrementAndGet(); // the recipe logs it; the next tick tries again
            }
        }, 0, 10, TimeUnit.MILLISECONDS);
        AtomicInteger oldTicks = new AtomicInteger();
        ScheduledFuture<?> old = executor.scheduleAtFixedRate(() -> {
            oldTicks.incrementAndGet();
            cleanup.oldCleanup();
        }, 0, 10, TimeUnit.MILLISECONDS);
        awaitThat(() -> cleanup.runs() >= 2 && cleanup.oldRuns() >= 2, "both jobs ran");

        int runsAtTheSwitch = cleanup.runs();
        store = Store.NO_CONNECTION;
        int before = ticks.get();
        int oldBefore = oldTicks.get();
        awaitThat(() -> ticks.get() >= before + 3 && (old.isDone() || oldTicks.get() >= oldBefore + 3),
                "three ticks without a free connection");
        int runsWithout = cleanup.runs();
        store = Store.DOWN;
        int lostBefore = lostTicks.get();
        awaitThat(() -> lostTicks.get() >= lostBefore + 2, "two ticks lost to the store's failure");
        store = Store.UP;
        int runsBefore = cleanup.runs();
        awaitThat(() -> cleanup.runs() >= runsBefore + 2, "the job runs again once the store is back");

        assertFalse(recipe.isDone(), "the recipe's schedule goes on");
        assertTrue(runsWithout <= runsAtTheSwitch + 1, "no tick without a connection ran the job (but one under way)");
        assertTrue(old.isDone(), "the old recipe's schedule ended at the first tick that threw");
        ExecutionException ended = assertThrows(ExecutionException.class, old::get);
        LockNotAcquiredException cause = assertInstanceOf(LockNotAcquiredException.class, ended.getCause());
        assertEquals(LockNotAcquiredException.Reason.NO_CONNECTION, cause.reason(), "SKIP throws without a connection");
    }

    private static void awaitThat(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1); // a bound for a hung test, not a measure
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not reached within a minute: " + what);
            }
            Thread.sleep(5);
        }
    }
}
