package io.locked.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.HolderKind;
import io.locked.api.LockHandle;
import io.locked.api.LockInfo;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRowState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The operators' view of the lock table, on every store of the contract suite: inspection of one
 * key and of a prefix, and forced release. Two managers on one store stand for two JVMs: each has
 * its own scopes and queues, and the inspecting one holds nothing.
 */
public interface InspectionContract {
    Duration PATIENCE = Duration.ofSeconds(20);

    /** @return the store under test, its table in place */
    LockRepository inspectedStore();

    /**
     * @return whether a pessimistic holder's holder, token and database session can be read from
     *         another session (the native statements; the JPA path sees only that the row is locked)
     */
    default boolean showsPessimisticHolders() {
        return true;
    }

    private LockManager manager() {
        // frequent session checks: a pessimistic holder whose session was ended learns it soon
        return LockManagerBuilder.on(inspectedStore()).sessionCheckEvery(Duration.ofMillis(200)).build();
    }

    private static String key(String name) {
        return "inspect:" + name + ":" + UUID.randomUUID();
    }

    @Test
    default void inspectionShowsAnOptimisticHolderOfAnotherManagerAndAReleasedKeyAsFree() {
        showsTheHolderThenFree(LockMode.OPTIMISTIC);
    }

    @Test
    default void inspectionShowsAPessimisticHolderOfAnotherManagerAndAReleasedKeyAsFree() {
        showsTheHolderThenFree(LockMode.PESSIMISTIC);
    }

    private void showsTheHolderThenFree(LockMode mode) {
        String key = key("holder");
        try (LockManager holders = manager(); LockManager operator = manager()) {
            LockInfo never = operator.inspect(key);
            assertFalse(never.held(), "a key never locked is free");
            assertTrue(never.token().isEmpty(), "a key never locked has no token: " + never);
            assertEquals(HolderKind.EXCLUSIVE, never.kind());
            assertEquals(0, never.slot());
            long token;
            try (LockHandle held = holders.acquire(LockRequest.of(key).mode(mode).lease(Duration.ofSeconds(30)))) {
                token = held.token();
                LockInfo info = operator.inspect(key);
                assertTrue(info.held(), "the held key shows as held: " + info);
                assertEquals(Optional.of(mode), info.mode());
                assertEquals(key, info.key());
                assertEquals(HolderKind.EXCLUSIVE, info.kind());
                if (mode == LockMode.OPTIMISTIC || showsPessimisticHolders()) {
                    assertTrue(info.heldByThisJvm(), "the holder is this JVM: " + info);
                    assertEquals(OptionalLong.of(token), info.token(), "the holder's token");
                    assertTrue(info.holder().orElseThrow().contains("/" + ProcessHandle.current().pid() + "/"),
                            "the holder names this process: " + info.holder());
                    assertTrue(info.since().isPresent(), "since when: " + info);
                }
                if (mode == LockMode.OPTIMISTIC) {
                    assertTrue(info.until().orElseThrow().isAfter(info.since().orElseThrow()), "the lease ends after it began: " + info);
                    assertTrue(info.databaseSession().isEmpty(), "a lease has no database session: " + info);
                } else {
                    assertTrue(info.until().isEmpty(), "a pessimistic hold has no end: " + info);
                    if (showsPessimisticHolders()) {
                        assertTrue(info.databaseSession().isPresent(), "the holder's database session: " + info);
                    }
                }
            }
            LockInfo released = operator.inspect(key);
            assertFalse(released.held(), "the released key is free: " + released);
            assertFalse(released.heldByThisJvm());
            assertEquals(OptionalLong.of(token), released.token(), "a free key shows the last token drawn");
            assertTrue(released.mode().isEmpty() && released.until().isEmpty(), "free: " + released);
        }
    }

    @Test
    default void listingPagesThroughAPrefixInKeyOrderAndTakesItsWildcardsLiterally() {
        String prefix = "inspect:list:" + UUID.randomUUID() + ":a_%";
        List<String> keys = List.of(prefix + "1", prefix + "2", prefix + "3", prefix + "4", prefix + "5");
        String lookAlike = prefix.replace("a_%", "ab%") + "1";
        try (LockManager holders = manager(); LockManager operator = manager()) {
            for (String key : keys) {
                holders.acquire(LockRequest.of(key).mode(LockMode.OPTIMISTIC)).close();
            }
            holders.acquire(LockRequest.of(lookAlike).mode(LockMode.OPTIMISTIC)).close();
            try (LockHandle third = holders.acquire(LockRequest.of(keys.get(2)).mode(LockMode.OPTIMISTIC))) {
                List<LockInfo> seen = new ArrayList<>();
                LockInfo after = null;
                List<LockInfo> page;
                int pages = 0;
                do {
                    page = operator.list(prefix, after, 2);
                    assertTrue(page.size() <= 2, "a page holds at most its limit");
                    seen.addAll(page);
                    after = page.isEmpty() ? after : page.get(page.size() - 1);
                    pages++;
                } while (page.size() == 2 && pages < 10);
                assertEquals(keys, seen.stream().map(LockInfo::key).toList(), "every key once, in order, no look-alike");
                for (LockInfo info : seen) {
                    assertEquals(info.key().equals(keys.get(2)), info.held(), "held is the third only: " + info);
                }
                assertEquals(OptionalLong.of(third.token()), seen.get(2).token());
            }
        }
    }

    /**
     * The store's look at named keys (a read/write writer's at its reader slots): exactly the named keys
     * that have a row, in key order, each as {@link LockRepository#inspect} shows it, and a neighbour that
     * shares their prefix left out; where only leases count, a pessimistic hold shows as its row's last
     * committed state.
     */
    @Test
    default void theNamedKeysAreInspectedInOneLookAndNoOtherKey() {
        String base = key("named") + ":a_%";
        String leased = base + "1";
        String locked = base + "2";
        String free = base + "3";
        String missing = base + "4";
        String neighbour = base + "11";
        try (LockManager holders = manager(); LockManager other = manager()) {
            holders.acquire(LockRequest.of(locked).mode(LockMode.PESSIMISTIC)).close(); // its row committed before the hold
            holders.acquire(LockRequest.of(free).mode(LockMode.OPTIMISTIC)).close();
            try (LockHandle lease = holders.acquire(LockRequest.of(leased).mode(LockMode.OPTIMISTIC)
                         .lease(Duration.ofSeconds(30)));
                 LockHandle near = holders.acquire(LockRequest.of(neighbour).mode(LockMode.OPTIMISTIC));
                 LockHandle hold = other.acquire(LockRequest.of(locked).mode(LockMode.PESSIMISTIC))) {
                List<String> named = List.of(missing, free, locked, leased);
                List<LockRowState> all = inspectedStore().inspectAll(named);
                assertEquals(List.of(leased, locked, free), all.stream().map(LockRowState::key).toList(),
                        "the named keys that have a row, in key order, and no other: " + all);
                assertEquals(LockMode.OPTIMISTIC, all.get(0).mode(), "the lease: " + all.get(0));
                assertEquals(lease.token(), all.get(0).token());
                assertEquals(LockMode.PESSIMISTIC, all.get(1).mode(), "the pessimistic hold: " + all.get(1));
                assertFalse(all.get(2).held(), "the released key: " + all.get(2));

                List<LockRowState> leases = inspectedStore().inspectLeases(named);
                assertEquals(List.of(leased, locked, free), leases.stream().map(LockRowState::key).toList(),
                        "only leases count, the same rows: " + leases);
                assertEquals(LockMode.OPTIMISTIC, leases.get(0).mode(), "the lease: " + leases.get(0));
                assertFalse(leases.get(1).held(), "the pessimistic hold shows its row as last committed: " + leases.get(1));
                assertTrue(hold.isValid() && near.isValid(), "the looks ended no hold");
            }
        }
    }

    @Test
    default void badInspectionArgumentsAreRefusedWithAClearMessage() {
        try (LockManager operator = manager()) {
            assertThrows(IllegalArgumentException.class, () -> operator.inspect(null));
            assertThrows(IllegalArgumentException.class, () -> operator.inspect(" "));
            assertThrows(IllegalArgumentException.class, () -> operator.forceRelease("k".repeat(256)));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> operator.list(null, null, 10))
                    .getMessage().contains("prefix"));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> operator.list("", null, 0))
                    .getMessage().contains("was 0"));
            assertThrows(IllegalArgumentException.class, () -> operator.list("", null, 1001));
        }
    }

    @Test
    default void forcingTheReleaseOfAFreeKeyEndsNothing() {
        String key = key("free");
        try (LockManager holders = manager(); LockManager operator = manager()) {
            assertEquals(Optional.empty(), operator.forceRelease(key), "never locked");
            holders.acquire(LockRequest.of(key)).close();
            assertEquals(Optional.empty(), operator.forceRelease(key), "released");
        }
    }

    @Test
    default void aForcedReleaseFreesAnOptimisticLeaseAndTheOldHolderLearnsItLostIt() throws InterruptedException {
        forceRelease(LockMode.OPTIMISTIC);
    }

    @Test
    default void aForcedReleaseEndsAPessimisticHoldersSessionAndTheOldHolderLearnsItLostIt() throws InterruptedException {
        forceRelease(LockMode.PESSIMISTIC);
    }

    private void forceRelease(LockMode mode) throws InterruptedException {
        String key = key("forced");
        try (LockManager holders = manager(); LockManager operator = manager()) {
            // the optimistic holder's next renewal, at most a third of the lease away, tells it the lease was ended;
            // 2 s, so that a busy machine does not let the lease run out before the forced release (600 ms could)
            LockHandle held = holders.acquire(LockRequest.of(key).mode(mode).lease(Duration.ofSeconds(2)));
            try {
                if (mode == LockMode.PESSIMISTIC && !showsPessimisticHolders()) {
                    IllegalStateException refused = assertThrows(IllegalStateException.class, () -> operator.forceRelease(key));
                    assertTrue(refused.getMessage().contains(key), refused.getMessage());
                    assertTrue(held.isValid(), "a refused forced release leaves the holder alone");
                    return;
                }
                Optional<LockInfo> ended = operator.forceRelease(key);
                assertTrue(ended.isPresent(), "a held key's hold is ended");
                assertEquals(OptionalLong.of(held.token()), ended.get().token(), "the hold ended is the holder's");
                assertEquals(Optional.of(mode), ended.get().mode());
                try (LockHandle next = operator.acquire(LockRequest.of(key).mode(mode).maxWait(PATIENCE))) {
                    assertTrue(next.token() > held.token(), "the next holder's token is higher");
                }
                Await.invalid(held, PATIENCE, "the forced release");
                assertThrows(LockLostException.class, held::close);
            } finally {
                closeQuietly(held);
            }
        }
    }

    @Test
    default void aForcedReleaseWithALockDelayKeepsTheKeyTakenForTheDelayOnTheDatabasesClock() throws InterruptedException {
        for (LockMode mode : LockMode.values()) {
            if (mode == LockMode.PESSIMISTIC && !showsPessimisticHolders()) {
                continue; // refused on this path, as aForcedReleaseEndsAPessimisticHolders... shows
            }
            String key = key("forced-delay");
            // the check reads the database's times, as LockDelayContract's: half a second outlasts the look
            Duration delay = Duration.ofMillis(500);
            try (LockManager holders = manager(); LockManager operator = manager()) {
                LockHandle held = holders.acquire(LockRequest.of(key).mode(mode).lease(Duration.ofSeconds(2)));
                try {
                    assertTrue(operator.forceRelease(key, delay).isPresent(), "the hold is ended");
                    LockInfo kept = operator.inspect(key);
                    assertTrue(kept.held() && !kept.heldByThisJvm(), "the lock-delay keeps the key taken, by nobody: " + kept);
                    Instant keptUntil = kept.until().orElseThrow();
                    assertFalse(keptUntil.isBefore(kept.since().orElseThrow().plus(delay)), "for the delay: " + kept);
                    try (LockHandle next = operator.acquire(LockRequest.of(key).mode(mode).maxWait(PATIENCE))) {
                        long until = keptUntil.getEpochSecond() * 1_000_000L + keptUntil.getNano() / 1000;
                        assertTrue(next.token() >= until - MinimumHoldContract.CLOCK_SLACK_MICROS, mode + ": the next holder"
                                + " entered (token " + next.token() + ") before the delay's end at " + keptUntil);
                    }
                    Await.invalid(held, PATIENCE, "the forced release");
                } finally {
                    closeQuietly(held);
                }
            }
        }
        try (LockManager operator = manager()) {
            assertThrows(IllegalArgumentException.class, () -> operator.forceRelease("k", Duration.ofSeconds(-1)));
        }
    }

    // a failed assertion must not leave the hold's connection borrowed for the next test
    private static void closeQuietly(LockHandle held) {
        try {
            held.close();
        } catch (RuntimeException alreadyLostOrClosed) {
            // what the test asserts about close() was asserted above
        }
    }
}
