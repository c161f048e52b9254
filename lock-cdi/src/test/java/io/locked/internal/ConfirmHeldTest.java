package io.locked.internal;

import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.contract.Await;
import io.locked.internal.exclusive.Acquisition;
import io.locked.internal.exclusive.AcquisitionView;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a reader that leaves its group while another releases the group's slot is told rests on
 * {@link Acquisition#confirmHeld()}: a hold released normally was held until its release, and is not
 * reported lost (a released lease is no longer valid, which is not a loss); a hold lost before is.
 */
class ConfirmHeldTest {

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aHoldReleasedNormallyWasHeldUntilItsRelease(LockMode mode) {
        InMemoryLockRepository store = new InMemoryLockRepository();
        try (LockManager locks = LockManagerBuilder.on(store).build()) {
            LockHandle held = locks.acquire(LockRequest.of("k").mode(mode));
            Acquisition acquisition = ((AcquisitionView) held).acquisition;
            held.close();
            assertFalse(acquisition.isValid(), "released");
            assertTrue(acquisition.confirmHeld(), "a normal release is no loss");
        }
    }

    @ParameterizedTest
    @EnumSource(value = LockMode.class, names = "OPTIMISTIC")
    void aLeaseLostBeforeItsReleaseIsNotConfirmed(LockMode mode) throws InterruptedException {
        InMemoryLockRepository store = new InMemoryLockRepository();
        try (LockManager locks = LockManagerBuilder.on(store).build()) {
            LockHandle held = locks.acquire(LockRequest.of("k").mode(mode).lease(Duration.ofMillis(100)));
            Acquisition acquisition = ((AcquisitionView) held).acquisition;
            store.cutRenewals();
            Await.invalid(held, Duration.ofSeconds(30), "its lease running out without a confirmed renewal");
            assertThrows(LockLostException.class, held::close);
            assertFalse(acquisition.confirmHeld(), "a lease lost while held");
        }
    }
}
