package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.contract.FaultyRepository;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A watchdog call that hangs (a row lock held elsewhere, a dead network) stalls its own lock only:
 * other leases go on being renewed, and the holder's close does not wait for it. One watchdog
 * thread, the default, as most applications run it.
 */
class HungRenewalTest {
    private static final Duration HANG_DETECTOR = Duration.ofSeconds(30);
    private final FaultyRepository store = new FaultyRepository(new InMemoryLockRepository());
    private final LockManager locks = LockManagerBuilder.on(store).sessionCheckEvery(Duration.ofMillis(50)).build();

    @AfterEach
    void close() {
        store.unstall();
        locks.close();
    }

    private static LockRequest optimistic(String key, Duration lease) {
        return LockRequest.of(key).mode(LockMode.OPTIMISTIC).lease(lease);
    }

    /** Polls a condition; the hang detector around the caller bounds it. */
    private static void await(BooleanSupplier condition) throws InterruptedException {
        while (!condition.getAsBoolean()) {
            Thread.sleep(10);
        }
    }

    private void assertRenewedWhileStalled(LockHandle other) {
        assertTimeoutPreemptively(HANG_DETECTOR, () -> {
            store.awaitStall();
            int before = store.renewals("other");
            await(() -> store.renewals("other") >= before + 3 || !other.isValid());
        });
        assertTrue(other.isValid(), "a hung call on another key stopped this lease's renewals");
    }

    @Test
    void aHungRenewalDelaysNoOtherLease() throws Exception {
        store.stallRenewalsOf("stuck");
        LockHandle stuck = locks.acquire(optimistic("stuck", Duration.ofMillis(300)));
        LockHandle other = locks.acquire(optimistic("other", Duration.ofSeconds(1)));
        try {
            assertRenewedWhileStalled(other);
        } finally {
            closeAfterUnstalling(stuck, other);
        }
    }

    @Test
    void aHungSessionCheckDelaysNoLeaseRenewal() throws Exception {
        store.stallSessionChecksOf("stuck");
        LockHandle stuck = locks.acquire(LockRequest.of("stuck"));
        LockHandle other = locks.acquire(optimistic("other", Duration.ofSeconds(1)));
        try {
            assertRenewedWhileStalled(other);
        } finally {
            closeAfterUnstalling(stuck, other);
        }
    }

    // what is judged is the other lease's validity, above; the closes only clean up
    private void closeAfterUnstalling(LockHandle stuck, LockHandle other) {
        store.unstall();
        for (LockHandle handle : new LockHandle[] {other, stuck}) {
            try {
                handle.close();
            } catch (io.locked.api.LockLostException ranOut) {
                // "stuck" ran out while stalled; "other" already failed the assertion
            }
        }
    }

    @Test
    void closeDoesNotWaitBehindAHungRenewal() throws Exception {
        store.stallRenewalsOf("stuck");
        // renewed after a third of it; the close below comes well inside the rest
        LockHandle stuck = locks.acquire(optimistic("stuck", Duration.ofSeconds(6)));
        assertTimeoutPreemptively(HANG_DETECTOR, () -> {
            store.awaitStall();
            assertDoesNotThrow(stuck::close);
        });
        try (LockHandle next = locks.acquire(optimistic("stuck", Duration.ofSeconds(6)).maxWait(Duration.ZERO))) {
            assertTrue(next.token() > stuck.token(), "the close did not free the row");
        }
    }

    @Test
    void aRenewalWhoseReplyWasLostDoesNotEndTheLease() throws Exception {
        store.loseRenewalRepliesOf("lost-reply", 1);
        try (LockHandle held = locks.acquire(optimistic("lost-reply", Duration.ofMillis(600)))) {
            assertTimeoutPreemptively(HANG_DETECTOR,
                    () -> await(() -> store.renewals("lost-reply") >= 3 || !held.isValid()));
            assertTrue(held.isValid(), "a renewal after the lost reply was refused");
        }
    }
}
