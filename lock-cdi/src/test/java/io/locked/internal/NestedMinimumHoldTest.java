package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A re-entry of a held key may ask for a minimum hold of its own (a {@code @Locked} job calling another on
 * the same key): the key stays taken for the longest hold of the entries, counted from the acquisition,
 * whichever entry asked for it.
 */
class NestedMinimumHoldTest {
    private static final Duration HOLD = Duration.ofMinutes(10);

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aNestedEntrysMinimumHoldKeepsTheKeyTaken(LockMode mode) {
        InMemoryLockRepository store = new InMemoryLockRepository();
        try (LockManager locks = LockManagerBuilder.on(store).build(); LockManager other = LockManagerBuilder.on(store).build()) {
            LockRequest job = LockRequest.of("nightly").mode(mode);
            try (LockHandle outer = locks.acquire(job)) {
                locks.acquire(job.holdAtLeast(HOLD)).close();
            }
            assertEquals(Optional.empty(), tryAndRelease(other, job), "the nested entry's hold kept the key taken");
        }
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aShorterNestedHoldDoesNotShortenTheOuterOne(LockMode mode) {
        InMemoryLockRepository store = new InMemoryLockRepository();
        try (LockManager locks = LockManagerBuilder.on(store).build(); LockManager other = LockManagerBuilder.on(store).build()) {
            LockRequest job = LockRequest.of("nightly").mode(mode);
            try (LockHandle outer = locks.acquire(job.holdAtLeast(HOLD))) {
                locks.acquire(job).close();
            }
            assertEquals(Optional.empty(), tryAndRelease(other, job), "the outer entry's hold kept the key taken");
        }
    }

    private static Optional<LockHandle> tryAndRelease(LockManager locks, LockRequest request) {
        Optional<LockHandle> held = locks.tryAcquire(request);
        held.ifPresent(LockHandle::close);
        return held;
    }
}
