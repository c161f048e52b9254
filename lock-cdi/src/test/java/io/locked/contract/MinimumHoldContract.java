package io.locked.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockInfo;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRowState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A minimum hold ({@link LockRequest#holdAtLeast}), on every store of the contract suite: the key
 * stays taken after its release until that long after the acquisition, on the database's clock,
 * for every mode and every JVM, and a forced release still ends it. Two managers on one store stand
 * for two JVMs.
 *
 * <p>Every check reads the database's own times: the hold's start and end as inspection shows them,
 * and the next holder's token, which is drawn from the database's clock in microseconds after its
 * row lock was granted. Whatever the machine's speed, a next holder that entered before the hold's
 * end fails the test; none of it measures time on this JVM.
 */
public interface MinimumHoldContract {
    /**
     * Long enough for a release and a look to come well within it on a healthy machine; a run slow
     * enough to reach it judges nothing of the hold's start (see the check).
     */
    Duration HOLD = Duration.ofSeconds(1);
    /** Tokens and lease ends are read from one clock at different moments of a statement, to the microsecond. */
    long CLOCK_SLACK_MICROS = 1000;

    /** @return the store under test, its table in place */
    LockRepository inspectedStore();

    private LockManager holdingManager() {
        return LockManagerBuilder.on(inspectedStore()).build();
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    default void aMinimumHoldKeepsTheKeyTakenPastItsReleaseInEveryModeAndJvm(LockMode mode) {
        String key = "hold:" + mode + ":" + UUID.randomUUID();
        LockMode other = mode == LockMode.OPTIMISTIC ? LockMode.PESSIMISTIC : LockMode.OPTIMISTIC;
        try (LockManager first = holdingManager(); LockManager second = holdingManager()) {
            long firstToken;
            long acquiring = System.nanoTime();
            try (LockHandle held = first.acquire(LockRequest.of(key).mode(mode).holdAtLeast(HOLD))) {
                firstToken = held.token();
            }
            LockInfo kept = second.inspect(key);
            if (!kept.held() && System.nanoTime() - acquiring >= HOLD.toNanos()) {
                return; // this machine took the whole hold to acquire, release and look: nothing to judge
            }
            assertTrue(kept.held(), "released under a minimum hold of " + HOLD + ", the key still shows as taken: " + kept);
            assertEquals(OptionalLong.of(firstToken), kept.token(), "the hold is the released holder's, under its token");
            assertFalse(kept.until().orElseThrow().isBefore(kept.since().orElseThrow().plus(HOLD)),
                    "the hold ends no earlier than " + HOLD + " after the acquisition: " + kept);
            long holdEnd = micros(kept.until().orElseThrow());

            // the releasing JVM's own next acquisition, in the same mode, goes to the database as well
            Optional<LockHandle> sameJvm = first.tryAcquire(LockRequest.of(key).mode(mode).maxWait(Duration.ZERO));
            sameJvm.ifPresent(entered -> {
                try (entered) {
                    assertEnteredAfter(holdEnd, entered.token(), "the releasing manager, " + mode);
                }
            });
            if (sameJvm.isPresent()) {
                return; // this machine was slow enough for the hold to pass; the check above held
            }
            // another JVM in the other mode waits for the hold's end, and enters only then
            try (LockHandle next = second.acquire(LockRequest.of(key).mode(other).maxWait(Duration.ofSeconds(30)))) {
                assertEnteredAfter(holdEnd, next.token(), "another manager, " + other);
            }
        }
    }

    @Test
    default void aForcedReleaseEndsAMinimumHold() {
        String key = "hold:forced:" + UUID.randomUUID();
        try (LockManager holders = holdingManager(); LockManager operator = holdingManager()) {
            try (LockHandle held = holders.acquire(LockRequest.of(key).holdAtLeast(Duration.ofMinutes(5)))) {
                assertTrue(held.isValid());
            }
            assertTrue(operator.tryAcquire(LockRequest.of(key).mode(LockMode.OPTIMISTIC).maxWait(Duration.ZERO)).isEmpty(),
                    "a five-minute hold keeps the key taken");
            Optional<LockInfo> ended = operator.forceRelease(key);
            assertTrue(ended.isPresent(), "the forced release ended the hold");
            try (LockHandle next = operator.acquire(LockRequest.of(key).maxWait(Duration.ZERO))) {
                assertTrue(next.token() > ended.get().token().orElseThrow(), "the next holder's token is higher");
            }
        }
    }

    /**
     * A renewal already on its way when the holder returned lands after its release with a minimum
     * hold: it finds the row still the owner's, under the owner's token, and live (the hold). It must
     * not end the hold earlier, alone or in a batch, or a job meant to run once per period runs twice.
     * The hold is ten minutes and the renewal's lease thirty seconds: no machine is slow enough to
     * blur the two.
     */
    @Test
    default void aRenewalThatLandsAfterAMinimumHoldReleaseNeverShortensTheHold() {
        LockRepository store = inspectedStore();
        String prefix = "hold:renewed-after:" + UUID.randomUUID() + ":";
        Duration lease = Duration.ofSeconds(30);
        Duration hold = Duration.ofMinutes(10);
        List<Lease> leases = List.of(store.takeLease(prefix + "alone", "owner-alone", "alone", lease, Duration.ZERO),
                store.takeLease(prefix + "batched-1", "owner-batched-1", "batched", lease, Duration.ZERO),
                store.takeLease(prefix + "batched-2", "owner-batched-2", "batched", lease, Duration.ZERO));
        try {
            for (Lease taken : leases) {
                assertTrue(store.releaseLease(taken, hold), "released live, with a hold: " + taken.key());
            }
            List<Instant> holdEnds = leases.stream().map(taken -> heldUntil(store, taken.key())).toList();

            store.renewLease(leases.get(0), lease);
            store.renewLeases(leases.subList(1, 3), lease);

            for (int i = 0; i < leases.size(); i++) {
                String key = leases.get(i).key();
                Instant end = heldUntil(store, key);
                assertFalse(end.isBefore(holdEnds.get(i)), "a renewal that landed after the release with a hold of "
                        + hold + " moved the key's end from " + holdEnds.get(i) + " to " + end + ": " + key);
                assertNull(store.takeLease(key, "owner-next", "next", lease, Duration.ZERO),
                        "another owner took the key during the hold: " + key);
            }
        } finally {
            leases.forEach(taken -> store.forceRelease(taken.key()));
        }
    }

    private static Instant heldUntil(LockRepository store, String key) {
        LockRowState row = store.inspect(key).orElseThrow();
        assertTrue(row.held() && row.until() != null, "the key is held under a lease: " + row);
        return row.until();
    }

    private static void assertEnteredAfter(long holdEndMicros, long token, String who) {
        assertTrue(token >= holdEndMicros - CLOCK_SLACK_MICROS, who + " entered at " + Instant.EPOCH.plusNanos(token * 1000)
                + " (its token, on the database's clock), before the hold's end at "
                + Instant.EPOCH.plusNanos(holdEndMicros * 1000));
    }

    private static long micros(Instant time) {
        return Math.addExact(Math.multiplyExact(time.getEpochSecond(), 1_000_000L), time.getNano() / 1000);
    }
}
