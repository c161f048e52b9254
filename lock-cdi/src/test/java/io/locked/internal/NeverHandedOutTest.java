package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A read or write whose row was taken but never handed out, given back because the other side was seen or
 * the wait ran out, answers "not acquired" even when that row's lease ran out before it was given back:
 * a caller gets a lock, "not acquired" or a store failure, never "lost" for what it never held. Renewals
 * are cut, so the lease runs out on the holder's own count, as under a store that stopped answering them.
 */
class NeverHandedOutTest {
    private static final Duration SHORT_LEASE = Duration.ofMillis(100);
    private final InMemoryLockRepository store = new InMemoryLockRepository();

    @Test
    void aReaderThatGivesItsSlotBackAfterItsLeaseRanOutIsNotAcquired() {
        try (LockManager writerJvm = LockManagerBuilder.on(store).build();
             LockManager readerJvm = LockManagerBuilder.on(store).build();
             LockHandle write = writerJvm.acquire(LockRequest.of("k").mode(LockMode.OPTIMISTIC).write())) {
            store.cutRenewals();
            // the reader's look at the writer row answers three of its leases after the slot was taken
            store.slowInspectionsOf(write.key(), SHORT_LEASE.multipliedBy(3));
            Optional<LockHandle> read = readerJvm.tryAcquire(
                    LockRequest.of("k").mode(LockMode.OPTIMISTIC).read().lease(SHORT_LEASE));
            assertEquals(Optional.empty(), read, "a read while another JVM writes");
        }
    }

    @Test
    void aWriterWhoseWaitForTheReadersRanOutAfterItsLeaseIsNotAcquired() {
        try (LockManager readerJvm = LockManagerBuilder.on(store).build();
             LockManager writerJvm = LockManagerBuilder.on(store).build();
             LockHandle read = readerJvm.acquire(LockRequest.of("k").mode(LockMode.OPTIMISTIC).read())) {
            store.cutRenewals();
            // its writer row's lease runs out (100 ms) well before its wait for the reader (400 ms)
            LockRequest write = LockRequest.of("k").mode(LockMode.OPTIMISTIC).write().lease(SHORT_LEASE)
                    .maxWait(SHORT_LEASE.multipliedBy(4));
            LockNotAcquiredException refused = assertThrows(LockNotAcquiredException.class, () -> writerJvm.acquire(write));
            assertEquals("k", refused.key());
        }
    }
}
