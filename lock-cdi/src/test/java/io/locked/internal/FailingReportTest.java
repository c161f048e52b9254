package io.locked.internal;

import io.locked.internal.base.LockMetrics;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.internal.base.LockMeter;
import io.locked.internal.base.TimeSource;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A meter (or a log handler) that throws right after the lock was taken fails the call, and the lock
 * the caller never saw is released at once: the row, its connection and the key's turn in this JVM.
 */
class FailingReportTest {

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aMeterThatThrowsAfterTheAcquisitionLeavesNothingHeld(LockMode mode) throws Exception {
        InMemoryLockRepository store = new InMemoryLockRepository();
        AtomicBoolean failing = new AtomicBoolean(true);
        LockMeter throwing = new LockMeter() {
            @Override
            public void acquired(long waitedNanos, long token) {
                if (failing.get()) {
                    throw new IllegalStateException("meter registry broken");
                }
            }
        };
        try (LockManager locks = new DefaultLockManager(store, TimeSource.system(java.time.Clock.systemUTC()), 1, Duration.ofSeconds(30),
                (name, lockMode, kind) -> throwing)) {
            LockRequest request = LockRequest.of("reported").mode(mode).maxWait(Duration.ZERO);
            IllegalStateException failure = assertThrows(IllegalStateException.class, () -> locks.acquire(request));
            assertEquals("meter registry broken", failure.getMessage());
            assertEquals(Optional.empty(), locks.current("reported"), "the failed call left the key in the thread's scope");

            failing.set(false);
            // another thread of this JVM, and another manager, get the key at once
            Optional<LockHandle> local = CompletableFuture.supplyAsync(() -> locks.tryAcquire(request)).get(10, TimeUnit.SECONDS);
            assertTrue(local.isPresent(), "the key's turn in this JVM was never ended");
            local.get().close();
            try (LockManager other = new DefaultLockManager(store, TimeSource.system(java.time.Clock.systemUTC()), 1, Duration.ofSeconds(30),
                    LockMetrics.NONE)) {
                Optional<LockHandle> elsewhere = other.tryAcquire(request);
                assertTrue(elsewhere.isPresent(), "the row is still held");
                elsewhere.get().close();
            }
        }
    }
    /**
     * The same for a read that joins its JVM's group of readers without a statement: the meter that throws
     * there leaves that reader out of the group, so the last reader's release frees the slot.
     */
    @Test
    void aMeterThatThrowsWhenAReadJoinsItsGroupLeavesThatReaderOut() throws Exception {
        InMemoryLockRepository store = new InMemoryLockRepository();
        AtomicInteger acquisitions = new AtomicInteger();
        LockMeter throwingAtTheJoin = new LockMeter() {
            @Override
            public void acquired(long waitedNanos, long token) {
                if (acquisitions.incrementAndGet() == 2) {
                    throw new IllegalStateException("meter registry broken");
                }
            }
        };
        try (DefaultLockManager locks = new DefaultLockManager(store, TimeSource.system(java.time.Clock.systemUTC()), 1,
                Duration.ofSeconds(30), (name, lockMode, kind) -> throwingAtTheJoin)) {
            locks.keepReaderSlotsFor(Duration.ZERO);
            LockRequest read = LockRequest.of("reported").read().mode(LockMode.OPTIMISTIC).maxWait(Duration.ZERO);
            LockHandle first = locks.acquire(read);
            CompletionException failure = assertThrows(CompletionException.class,
                    () -> CompletableFuture.supplyAsync(() -> locks.acquire(read)).join());
            assertEquals("meter registry broken", failure.getCause().getMessage());
            assertEquals(2, acquisitions.get(), "the second read joined the first one's group");
            first.close();
            try (LockManager other = new DefaultLockManager(store, TimeSource.system(java.time.Clock.systemUTC()), 1,
                    Duration.ofSeconds(30), LockMetrics.NONE)) {
                Optional<LockHandle> write = other.tryAcquire(LockRequest.of("reported").write().mode(LockMode.OPTIMISTIC));
                assertTrue(write.isPresent(), "the group's slot is still held for the reader the meter failed");
                write.get().close();
            }
        }
    }
}
