package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.LockStoreUnavailableException;
import io.locked.api.LockType;
import io.locked.contract.DelegatingRepository;
import io.locked.spi.Lease;
import io.locked.spi.LockRows;
import io.locked.testing.InMemoryLockRepository;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An {@code OPTIMISTIC} reader slot whose keep ended is released on the lease watchdog's thread; a manager that
 * closes while that release is under way waits for it before it stops the watchdog. Stopping the watchdog
 * interrupts its threads, and an interrupted release fails (Derby's embedded driver throws, a pool waiting for a
 * connection gives up), which left the slot held until its lease ran out: another JVM's writer waited for it that
 * long. CI found it as a reader slot still held 30 s after a read/write contract test on Derby.
 */
class ReleaseUnderWayAtCloseTest {
    private static final String KEY = "report";
    private final InMemoryLockRepository memory = new InMemoryLockRepository();
    private final CountDownLatch releasing = new CountDownLatch(1);
    private final CountDownLatch goOn = new CountDownLatch(1);

    @Test
    void aCloseWaitsForTheReleaseOfAKeptReaderSlotUnderWayOnTheWatchdog() throws Exception {
        DelegatingRepository store = new DelegatingRepository(memory) {
            @Override
            public boolean releaseLease(Lease lease) {
                if (lease.key().startsWith(LockRows.readerSlotPrefix(KEY))) {
                    holdTheRelease(lease);
                }
                return super.releaseLease(lease);
            }
        };
        DefaultLockManager locks = (DefaultLockManager) LockManagerBuilder.on(store).build();
        locks.acquire(LockRequest.of(KEY).mode(LockMode.OPTIMISTIC).type(LockType.READ)).close();
        assertTrue(releasing.await(10, TimeUnit.SECONDS), "the kept slot's release never began");
        assertEquals(1, memory.rowsHeld(), "the slot is held until its release ends");

        Thread closing = new Thread(locks::close, "closing");
        closing.start();
        while (closing.isAlive() && !waitsForReleases(closing)) {
            Thread.onSpinWait(); // until the close waits for the release, or (before the fix) ended without it
        }
        goOn.countDown();
        closing.join(TimeUnit.SECONDS.toMillis(10));

        assertFalse(closing.isAlive(), "the close never ended");
        assertEquals(0, memory.rowsHeld(), "the close cut off the kept slot's release: the slot stays held");
    }

    /** @return whether the close waits in the read/write locks' part of it (before the fix it never did) */
    private static boolean waitsForReleases(Thread closing) {
        StackTraceElement[] stack = closing.getStackTrace();
        return Arrays.stream(stack).anyMatch(frame -> frame.getMethodName().equals("awaitUntil"))
                && Arrays.stream(stack).anyMatch(frame -> frame.getClassName().endsWith(".LocalReadWrite")
                        && frame.getMethodName().equals("close"));
    }

    /** Holds the release until the test lets it go on; interrupted, it fails as a real store's can. */
    private void holdTheRelease(Lease lease) {
        releasing.countDown();
        try {
            assertTrue(goOn.await(10, TimeUnit.SECONDS), "the test never let the release go on");
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new LockStoreUnavailableException(lease.key(), "interrupted while releasing", interrupted);
        }
    }
}
