package io.locked.internal;

import io.locked.internal.exclusive.Handle;
import io.locked.internal.exclusive.OptimisticAcquisition;
import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.LockStoreUnavailableException;
import io.locked.contract.DelegatingRepository;
import io.locked.internal.base.LockMetrics;
import io.locked.spi.Lease;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A lease that ran out while the database was down is lost, and the holder is told exactly that at
 * close: a {@link LockLostException}, with the release's own failure attached, never the store's
 * exception in its place (which a {@code @Locked} method would not report as a loss).
 */
class LostWhileStoreDownTest {
    private final ShiftableTime time = new ShiftableTime();
    private final AtomicBoolean storeDown = new AtomicBoolean();
    private final DelegatingRepository store = new DelegatingRepository(new InMemoryLockRepository()) {
        @Override
        public Lease renewLease(Lease lease, Duration duration) {
            failIfDown(lease.key());
            return super.renewLease(lease, duration);
        }

        @Override
        public boolean releaseLease(Lease lease) {
            failIfDown(lease.key());
            return super.releaseLease(lease);
        }

        private void failIfDown(String key) {
            if (storeDown.get()) {
                throw new LockStoreUnavailableException(key, "the database does not answer", null);
            }
        }
    };
    private final DefaultLockManager locks = new DefaultLockManager(store, time, 1, Duration.ofSeconds(30),
            LockMetrics.NONE);

    @AfterEach
    void close() {
        locks.close();
    }

    @Test
    void aLeaseThatRanOutWhileTheStoreWasDownIsReportedLostAtClose() {
        LockHandle held = locks.acquire(LockRequest.of("down").mode(LockMode.OPTIMISTIC).lease(Duration.ofSeconds(30)));
        storeDown.set(true);
        time.advance(31, TimeUnit.SECONDS); // no renewal could confirm it
        assertFalse(held.isValid());

        LockLostException lost = assertThrows(LockLostException.class, held::close);
        assertEquals(1, lost.getSuppressed().length, "the failed release rides along");
        assertInstanceOf(LockStoreUnavailableException.class, lost.getSuppressed()[0]);
    }

    @Test
    void aLossFoundByTheWatchdogIsReportedAtCloseThoughTheReleaseFails() {
        LockHandle held = locks.acquire(LockRequest.of("down-renewed").mode(LockMode.OPTIMISTIC)
                .lease(Duration.ofSeconds(30)));
        storeDown.set(true);
        time.advance(31, TimeUnit.SECONDS);
        ((OptimisticAcquisition) ((Handle) held).acquisition).renew(); // the watchdog's tick marks it lost

        LockLostException lost = assertThrows(LockLostException.class, held::close);
        assertInstanceOf(LockStoreUnavailableException.class, lost.getSuppressed()[0]);
    }
}
