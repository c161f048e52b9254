package io.locked.contract;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockInfo;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.spi.LockRepository;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A lock-delay ({@link LockRequest#lockDelay}), on every store of the contract suite: a holder that
 * stops renewing without releasing (here its manager is closed under it, as when its JVM dies)
 * leaves the key taken for the delay past its lease, on the database's clock; a holder that
 * releases frees the key at once. Checked with the database's own times, as {@link MinimumHoldContract}.
 */
public interface LockDelayContract {
    Duration LEASE = Duration.ofMillis(500);
    /**
     * What the checks compare are the database's own times (the stored end against the acquisition plus
     * lease plus delay, the next holder's token against that end), which a store that ignores the delay
     * fails at any length; the delay only has to outlast the acquisition and the look that follows it.
     */
    Duration DELAY = Duration.ofMillis(500);

    /** @return the store under test, its table in place */
    LockRepository inspectedStore();

    @Test
    default void anAbandonedLeaseKeepsTheKeyTakenForTheLockDelayPastItsEnd() throws Exception {
        String key = "delay:abandoned:" + UUID.randomUUID();
        LockRequest request = LockRequest.of(key).mode(LockMode.OPTIMISTIC).lease(LEASE).lockDelay(DELAY);
        try (LockManager operator = LockManagerBuilder.on(inspectedStore()).build()) {
            LockManager dying = LockManagerBuilder.on(inspectedStore()).build();
            LockHandle abandoned = dying.acquire(request);
            dying.close(); // its watchdog stops: no renewal, no release, as when the JVM dies
            LockInfo left = operator.inspect(key);
            assertTrue(left.held(), "the abandoned lease holds the key: " + left);
            assertFalse(left.until().orElseThrow().isBefore(left.since().orElseThrow().plus(LEASE).plus(DELAY)),
                    "the store keeps the lease plus the lock-delay: " + left);
            try (LockHandle next = operator.acquire(LockRequest.of(key).mode(LockMode.OPTIMISTIC).maxWait(Duration.ofSeconds(30)))) {
                long until = micros(left.until().orElseThrow());
                assertTrue(next.token() >= until - MinimumHoldContract.CLOCK_SLACK_MICROS, "the next holder entered at "
                        + Instant.EPOCH.plusNanos(next.token() * 1000) + " (its token, on the database's clock), before the"
                        + " lock-delay's end at " + left.until().orElseThrow());
                assertFalse(abandoned.isValid(), "the abandoned holder counts on its lease only, not on the delay");
            }
        }
    }

    @Test
    default void aReleasedLeaseFreesTheKeyAtOnceDespiteALockDelay() {
        String key = "delay:released:" + UUID.randomUUID();
        try (LockManager holders = LockManagerBuilder.on(inspectedStore()).build();
             LockManager others = LockManagerBuilder.on(inspectedStore()).build()) {
            try (LockHandle held = holders.acquire(LockRequest.of(key).mode(LockMode.OPTIMISTIC).lockDelay(Duration.ofMinutes(5)))) {
                assertTrue(held.isValid());
            }
            assertTrue(others.tryAcquire(LockRequest.of(key).mode(LockMode.OPTIMISTIC).maxWait(Duration.ZERO))
                    .map(next -> { next.close(); return true; }).orElse(false), "a release leaves no delay");
        }
    }

    private static long micros(Instant time) {
        return Math.addExact(Math.multiplyExact(time.getEpochSecond(), 1_000_000L), time.getNano() / 1000);
    }
}
