package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
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
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A reader that was forming a group when a writer of its own JVM came gives its slot back without looking at the
 * writer row, and waits in its JVM for that writer's end instead of reading the row again and again: the writer
 * is known here, and its end wakes the reader. (Measured on MariaDB, 16 threads on one key with 90 % reads: a
 * write and the group after it sent about a third of a look more, each look at a held row four statements.)
 */
class ReaderBehindItsJvmsWriterTest {
    private static final String KEY = "report";
    private final InMemoryLockRepository memory = new InMemoryLockRepository();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @Test
    void aReaderBehindAWriterOfItsJvmDoesNotLookAtTheWriterRowUntilTheWriteEnds() throws Exception {
        CountDownLatch writerHolds = new CountDownLatch(1);
        AtomicReference<String> readerSlot = new AtomicReference<>();
        AtomicInteger writerRowLooks = new AtomicInteger();
        DelegatingRepository store = new DelegatingRepository(memory) {
            @Override
            public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
                if (!key.startsWith(LockRows.readerSlotPrefix(KEY)) || readerSlot.get() != null) {
                    return super.takeLease(key, owner, holder, lease, dbWait);
                }
                // the reader has begun to form its group: the writer comes now, and holds before its slot is taken
                awaitOrFail(writerHolds);
                Lease slot = super.takeLease(key, owner, holder, lease, dbWait);
                readerSlot.set(key);
                return slot;
            }

            @Override
            public Optional<LockRowState> inspect(String key) {
                if (key.equals(LockRows.writer(KEY))) {
                    writerRowLooks.incrementAndGet();
                }
                return super.inspect(key);
            }
        };
        try (LockManager locks = LockManagerBuilder.on(store).build()) {
            readerWaitsForTheWriterWithoutLooking(locks, writerHolds, readerSlot, writerRowLooks);
        }
    }

    private void readerWaitsForTheWriterWithoutLooking(LockManager locks, CountDownLatch writerHolds,
                                                       AtomicReference<String> readerSlot, AtomicInteger writerRowLooks)
            throws Exception {
        LockRequest read = LockRequest.of(KEY).mode(LockMode.OPTIMISTIC).type(LockType.READ).maxWait(Duration.ofSeconds(30));
        LockRequest write = LockRequest.of(KEY).mode(LockMode.OPTIMISTIC).type(LockType.WRITE).maxWait(Duration.ofSeconds(30));

        AtomicReference<Thread> readerThread = new AtomicReference<>();
        Future<Boolean> reader = threads.submit(() -> {
            readerThread.set(Thread.currentThread());
            try (LockHandle held = locks.acquire(read)) {
                return held != null;
            }
        });
        long patience = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (readerThread.get() == null || !waitsOrSleeps(readerThread.get())) {
            // until the reader waits in its slot's take for the writer
            assertTrue(System.nanoTime() - patience < 0 && !reader.isDone(), "the reader never began to take a slot");
            Thread.onSpinWait();
        }
        Future<LockHandle> writer = threads.submit(() -> locks.acquire(write));
        LockHandle written = writer.get(30, TimeUnit.SECONDS);
        assertNotNull(written, "the writer did not get in");
        int looksBefore = writerRowLooks.get();
        writerHolds.countDown();
        patience = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (readerSlot.get() == null || memory.inspect(readerSlot.get()).map(LockRowState::held).orElse(false)
                || !waitsOrSleeps(readerThread.get())) {
            // until the reader took its slot, gave it back, and waits
            assertTrue(System.nanoTime() - patience < 0 && !reader.isDone(), "the reader never gave its slot back to wait");
            Thread.onSpinWait();
        }
        assertEquals(looksBefore, writerRowLooks.get(), "the reader looked at the writer row while its JVM's writer wrote");

        written.close();
        assertTrue(reader.get(30, TimeUnit.SECONDS), "the reader did not get in after the write");
    }

    private static boolean waitsOrSleeps(Thread thread) {
        Thread.State state = thread.getState();
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
    }

    private static void awaitOrFail(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("the writer never held the key");
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new AssertionError(interrupted);
        }
    }
}
