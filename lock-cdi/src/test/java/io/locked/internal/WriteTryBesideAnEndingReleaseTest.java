package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.LockType;
import io.locked.contract.DelegatingRepository;
import io.locked.spi.Lease;
import io.locked.spi.LockRowState;
import io.locked.spi.LockRows;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A try of a write is not refused for its own JVM's empty {@code OPTIMISTIC} reader slot whose release (the end of
 * its keep, on the lease watchdog's thread) ends between the writer's look at the slots and its snapshot of its
 * JVM's groups: the look saw the row held, the snapshot no longer named the group, and the writer took the row
 * for a reader's and gave up. CI found it once in {@code ReadWriteInCdiTest} on H2, a write tried right after
 * two reads ended.
 */
class WriteTryBesideAnEndingReleaseTest {
    private static final String KEY = "report";
    private final InMemoryLockRepository memory = new InMemoryLockRepository();
    private final CountDownLatch releasing = new CountDownLatch(1);
    private final CountDownLatch goOn = new CountDownLatch(1);
    private final AtomicBoolean looked = new AtomicBoolean();
    private volatile Thread releaser;

    @Test
    void aWriteTryPassesItsOwnSlotWhoseReleaseEndsDuringItsLook() throws Exception {
        DelegatingRepository store = new DelegatingRepository(memory) {
            @Override
            public boolean releaseLease(Lease lease) {
                if (lease.key().startsWith(LockRows.readerSlotPrefix(KEY)) && releaser == null) {
                    releaser = Thread.currentThread();
                    releasing.countDown();
                    await(goOn);
                }
                return super.releaseLease(lease);
            }

            @Override
            public List<LockRowState> inspectAll(List<String> keys) {
                List<LockRowState> rows = super.inspectAll(keys);
                if (keys.contains(LockRows.readerSlot(KEY, 1)) && looked.compareAndSet(false, true)) {
                    goOn.countDown(); // the release goes on and ends before this look returns
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (!idle(releaser) && System.nanoTime() < deadline) {
                        Thread.onSpinWait();
                    }
                }
                return rows;
            }
        };
        try (LockManager locks = LockManagerBuilder.on(store).keepReaderSlotsFor(Duration.ofMillis(1)).build()) {
            locks.acquire(LockRequest.of(KEY).mode(LockMode.OPTIMISTIC).type(LockType.READ)).close();
            assertTrue(releasing.await(10, TimeUnit.SECONDS), "the kept slot's release never began");

            Optional<LockHandle> write = locks.tryAcquire(LockRequest.of(KEY).mode(LockMode.OPTIMISTIC).type(LockType.WRITE));

            assertTrue(looked.get(), "the writer never looked at the slots");
            assertTrue(idle(releaser), "the slot's release had not ended during the writer's look");
            assertTrue(write.isPresent(), "the write was refused for its own JVM's slot, released during its look");
            write.get().close();
        }
        assertEquals(0, memory.rowsHeld(), "a row is still held");
    }

    /** @return whether the thread that released the slot is back in its pool, its release and the sweep ended */
    private static boolean idle(Thread thread) {
        return thread != null && (thread.getState() == Thread.State.WAITING || thread.getState() == Thread.State.TIMED_WAITING)
                && Arrays.stream(thread.getStackTrace()).anyMatch(frame -> frame.getMethodName().equals("getTask"));
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
