package io.locked.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.LockStoreUnavailableException;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A release of an optimistic lease that the store could not be reached for is sent again once it can be, on
 * every store of the contract suite: the holder is told its release failed, the row keeps the lease meanwhile,
 * and another manager gets the key within a wait far shorter than the lease, with a higher token. Without the
 * release sent again the key would stay taken for the whole lease.
 */
public interface ReleaseRetryContract {
    /** @return the store under test, its table in place */
    LockRepository inspectedStore();

    @Test
    default void aReleaseTheStoreFailedIsSentAgainOnceItAnswers() {
        String key = "release-retry:" + UUID.randomUUID();
        Duration lease = Duration.ofMinutes(10);
        FailingReleases store = new FailingReleases(inspectedStore());
        try (LockManager holder = LockManagerBuilder.on(store).build();
             LockManager other = LockManagerBuilder.on(inspectedStore()).build()) {
            LockHandle handle = holder.acquire(LockRequest.of(key).mode(LockMode.OPTIMISTIC).lease(lease));
            store.failing = true;
            assertThrows(LockStoreUnavailableException.class, handle::close, "the holder is told its release failed");
            assertTrue(other.inspect(key).held(), "the failed release left the lease in the row");
            store.failing = false;
            // a tenth of the lease: only a release sent again frees the key within it
            try (LockHandle next = other.acquire(LockRequest.of(key).mode(LockMode.OPTIMISTIC).maxWait(lease.dividedBy(10)))) {
                assertTrue(next.token() > handle.token(), next.token() + " after " + handle.token());
            }
            assertTrue(store.refused.get() >= 1, "the store refused the release");
            assertEquals(1, store.sent.get(), "the release went through once");
        }
    }

    /** The store, whose lease releases fail while {@link #failing} is set, as an outage's would, without being sent. */
    final class FailingReleases extends DelegatingRepository {
        volatile boolean failing;
        final AtomicInteger refused = new AtomicInteger();
        final AtomicInteger sent = new AtomicInteger();

        FailingReleases(LockRepository store) {
            super(store);
        }

        @Override
        public boolean releaseLease(Lease lease) {
            if (failing) {
                refused.incrementAndGet();
                throw new LockStoreUnavailableException(lease.key(), "the store cannot be reached (the test's outage)", null);
            }
            sent.incrementAndGet();
            return super.releaseLease(lease);
        }
    }
}
