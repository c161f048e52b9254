package io.locked.internal.operations;

import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.contract.DelegatingRepository;
import io.locked.internal.definition.CleanupSettings;
import io.locked.internal.operations.IdleRowCleanup;
import io.locked.spi.LockRepository;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Two managers on one store stand for two JVMs on one database. */
class IdleRowCleanupTest {
    private static final CleanupSettings OFTEN = new CleanupSettings(Duration.ofHours(1), Duration.ofMillis(20));
    private final InMemoryLockRepository database = new InMemoryLockRepository();

    /** Counts cleanup calls; the first one fails, as a database outage would. */
    private static final class Jvm extends DelegatingRepository {
        final AtomicInteger calls = new AtomicInteger();
        final LockManager locks = LockManagerBuilder.on(this).build();

        Jvm(LockRepository database) {
            super(database);
        }

        @Override
        public int deleteIdleRows(Duration idleFor) {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("first run fails");
            }
            return super.deleteIdleRows(idleFor);
        }
    }

    @Test
    void oneJvmDoesTheWorkAFailedRunStopsNothingAndCloseHandsTheWorkOver() throws Exception {
        Jvm first = new Jvm(database);
        Jvm second = new Jvm(database);
        IdleRowCleanup firstCleanup = new IdleRowCleanup(first.locks, first, OFTEN);
        try (IdleRowCleanup secondCleanup = new IdleRowCleanup(second.locks, second, OFTEN)) {
            firstCleanup.start();
            secondCleanup.start();
            until(() -> first.calls.get() + second.calls.get() >= 10, Duration.ofSeconds(30),
                    "the cleanup did not go on after its first run failed");
            assertTrue(first.calls.get() == 0 || second.calls.get() == 0,
                    "both JVMs ran the cleanup: " + first.calls + " and " + second.calls);
            Jvm worker = first.calls.get() > 0 ? first : second;
            Jvm idle = worker == first ? second : first;
            (worker == first ? firstCleanup : secondCleanup).close();
            until(() -> idle.calls.get() >= 2, Duration.ofSeconds(30),
                    "the other JVM did not take the work over once the first stopped and released its lock");
            int stopped = worker.calls.get();
            until(() -> idle.calls.get() >= 5, Duration.ofSeconds(30), "the other JVM stopped running");
            assertEquals(stopped, worker.calls.get(), "a closed cleanup still ran");
        } finally {
            firstCleanup.close();
            first.locks.close();
            second.locks.close();
        }
    }

    private static void until(BooleanSupplier condition, Duration patience, String failure) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("within " + patience + ": " + failure);
            }
            Thread.sleep(10);
        }
    }
}
