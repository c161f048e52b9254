package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.contract.Await;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A lease its holder counts lost because no renewal confirmed it in time may still stand in the database
 * (here: a lock-delay keeps the row's lease past the holder's own count). Its release tells the holder of
 * the loss, and still leaves the request's minimum hold: the job it ran must not run again in its period.
 */
class MinimumHoldAfterLossTest {

    @Test
    void aLeaseLostOnItsHoldersCountStillLeavesItsMinimumHold() throws InterruptedException {
        InMemoryLockRepository store = new InMemoryLockRepository();
        Duration lease = Duration.ofMillis(100);
        LockRequest job = LockRequest.of("nightly").mode(LockMode.OPTIMISTIC).lease(lease)
                .lockDelay(Duration.ofMinutes(1)).holdAtLeast(Duration.ofMinutes(10));
        try (LockManager first = LockManagerBuilder.on(store).build(); LockManager second = LockManagerBuilder.on(store).build()) {
            LockHandle held = first.acquire(job);
            store.cutRenewals();
            Await.invalid(held, Duration.ofSeconds(30), "its lease running out on its own count, no renewal confirmed");
            assertThrows(LockLostException.class, held::close, "the holder is told at its release");
            Optional<LockHandle> again = second.tryAcquire(job);
            again.ifPresent(LockHandle::close);
            assertEquals(Optional.empty(), again, "another instance ran the job again within its minimum hold");
        }
    }
}
