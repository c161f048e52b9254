package io.locked.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Renewals in batches ({@link LockRepository#renewLeases}), on every store of the contract suite: a
 * lease of a batch that was lost (taken over by another owner after it expired, or expired with
 * nobody taking it) is reported lost alone, and the others of its batch are renewed and stay valid.
 * Stores that renew one lease per call run the same checks through the default, one by one.
 */
public interface BatchedRenewalContract {
    Duration LONG_LEASE = Duration.ofSeconds(30);
    Duration SHORT_LEASE = Duration.ofMillis(200);

    /** @return the store under test, its table in place */
    LockRepository inspectedStore();

    @Test
    @Timeout(60)
    default void aLeaseLostInItsBatchIsReportedAloneAndTheOthersAreRenewed() throws InterruptedException {
        LockRepository store = inspectedStore();
        String prefix = "batch:" + UUID.randomUUID() + ":";
        // both short leases are taken first: when the thief's take finds the second expired on the
        // database's clock, the first has expired too
        Lease expired = store.takeLease(prefix + "expired", "owner-expired", "expired", SHORT_LEASE, Duration.ZERO);
        Lease takenOver = store.takeLease(prefix + "taken-over", "owner-taken-over", "taken-over", SHORT_LEASE, Duration.ZERO);
        List<Lease> batch = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            batch.add(store.takeLease(prefix + i, "owner-" + i, "holder-" + i, LONG_LEASE, Duration.ZERO));
        }
        Lease thief = takeOnceExpired(store, takenOver, "owner-thief");
        batch.add(2, takenOver);
        batch.add(4, expired);

        List<Lease> answers = store.renewLeases(batch, LONG_LEASE);

        assertEquals(batch.size(), answers.size(), "one answer per lease, in their order");
        assertNull(answers.get(2), "a lease taken over after it expired is reported lost");
        assertNull(answers.get(4), "a lease that expired unrenewed is reported lost, even with nobody taking it");
        for (int i = 0; i < batch.size(); i++) {
            if (i == 2 || i == 4) {
                continue;
            }
            Lease sent = batch.get(i);
            Lease renewed = answers.get(i);
            assertNotNull(renewed, "a live lease of the batch is renewed: " + sent.key());
            assertEquals(List.of(sent.key(), sent.owner(), sent.token()), List.of(renewed.key(), renewed.owner(), renewed.token()),
                    "the renewed lease is the one sent, under its owner and token");
            assertTrue(store.releaseLease(renewed), "a renewed lease is still its owner's: " + sent.key());
        }
        assertFalse(store.releaseLease(takenOver), "the old owner's release is refused");
        assertTrue(store.releaseLease(thief), "the key taken over stays the new owner's, untouched by the batch");
        assertFalse(store.releaseLease(expired), "the expired lease was not renewed");
    }

    /**
     * A batch that holds a key's old lease beside its new owner's: the rows the renewal finds are
     * fewer than the leases sent, though as many as the keys, and only the new owner's is renewed.
     */
    @Test
    @Timeout(60)
    default void anOldLeaseBesideItsKeysNewOwnerInOneBatchIsReportedLostAndTheNewOneRenewed() throws InterruptedException {
        LockRepository store = inspectedStore();
        String prefix = "batch-same-key:" + UUID.randomUUID() + ":";
        Lease old = store.takeLease(prefix + "taken-over", "owner-old", "old", SHORT_LEASE, Duration.ZERO);
        Lease current = takeOnceExpired(store, old, "owner-new");
        Lease other = store.takeLease(prefix + "other", "owner-other", "other", LONG_LEASE, Duration.ZERO);

        List<Lease> answers = store.renewLeases(List.of(old, current, other), LONG_LEASE);

        assertEquals(3, answers.size(), "one answer per lease, in their order");
        assertNull(answers.get(0), "the old owner's lease is reported lost");
        assertNotNull(answers.get(1), "the new owner's lease of the same key is renewed");
        assertNotNull(answers.get(2), "the other key's lease is renewed");
        assertEquals(List.of(current.owner(), current.token()), List.of(answers.get(1).owner(), answers.get(1).token()));
        assertFalse(store.releaseLease(old), "the old owner's release is refused");
        assertTrue(store.releaseLease(answers.get(1)), "the key stays the new owner's");
        assertTrue(store.releaseLease(answers.get(2)));
    }

    /** @return a new owner's lease of the key, taken as soon as the database's clock has let the short one expire */
    private static Lease takeOnceExpired(LockRepository store, Lease expiring, String newOwner) throws InterruptedException {
        Lease taken = null;
        while (taken == null) {
            Thread.sleep(20); // polling the database's clock; the test's @Timeout bounds it
            taken = store.takeLease(expiring.key(), newOwner, newOwner, LONG_LEASE, Duration.ZERO);
        }
        return taken;
    }

    @Test
    @Timeout(60)
    default void aFullBatchIsRenewed() {
        LockRepository store = inspectedStore();
        String prefix = "full-batch:" + UUID.randomUUID() + ":";
        int size = Math.min(store.renewalBatchSize(), 500);
        List<Lease> batch = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            batch.add(store.takeLease(prefix + i, "owner-" + i, "holder", LONG_LEASE, Duration.ZERO));
        }
        List<Lease> answers = store.renewLeases(batch, LONG_LEASE);
        assertEquals(size, answers.size());
        for (int i = 0; i < size; i++) {
            assertNotNull(answers.get(i), "lease " + i + " of a full batch of " + size + " is renewed");
            assertTrue(store.releaseLease(answers.get(i)));
        }
    }

    @Test
    @Timeout(120)
    default void aHolderWhoseLeaseWasLostInABatchLearnsItAloneWhileTheOthersStayValid() throws Exception {
        String prefix = "batch-holders:" + UUID.randomUUID() + ":";
        String victimKey = prefix + "victim";
        HeldBackRenewals store = new HeldBackRenewals(inspectedStore(), victimKey);
        Duration lease = Duration.ofMillis(1200);
        try (LockManager holders = LockManagerBuilder.on(store).build();
             LockManager others = LockManagerBuilder.on(inspectedStore()).build()) {
            List<LockHandle> kept = new ArrayList<>();
            kept.add(holders.acquire(LockRequest.of(prefix + "a").mode(LockMode.OPTIMISTIC).lease(lease)));
            LockHandle victim = holders.acquire(LockRequest.of(victimKey).mode(LockMode.OPTIMISTIC).lease(lease));
            kept.add(holders.acquire(LockRequest.of(prefix + "b").mode(LockMode.OPTIMISTIC).lease(lease)));
            kept.add(holders.acquire(LockRequest.of(prefix + "c").mode(LockMode.OPTIMISTIC).lease(lease)));

            // the victim's renewals stop reaching the store (as for a holder cut off from it) while its
            // holder is told they succeeded; once its lease ran out, another owner takes the key
            store.holdBack.set(true);
            LockHandle thief = others.acquire(LockRequest.of(victimKey).mode(LockMode.OPTIMISTIC).lease(lease)
                    .maxWait(Duration.ofSeconds(30)));
            store.holdBack.set(false);
            assertTrue(thief.token() > victim.token(), "the new owner's token is higher");

            // the next renewal that carries the victim's lease reaches the store, which reports it lost
            while (victim.isValid()) {
                Thread.sleep(20); // polling a condition; @Timeout bounds it
            }
            int callsAtLoss = store.calls.size();
            // two more renewal rounds of every other lease, through a lease length and more
            for (LockHandle other : kept) {
                String key = other.key();
                while (store.renewalsOf(key, callsAtLoss) < 2) {
                    Thread.sleep(20); // polling a condition; @Timeout bounds it
                    assertTrue(other.isValid(), "a lease of the victim's batch was lost with it: " + key);
                }
            }
            for (LockHandle other : kept) {
                assertTrue(other.isValid(), "renewed after the victim's loss: " + other.key());
            }
            if (inspectedStore().renewalBatchSize() > 1) {
                assertTrue(store.lostWithOthersRenewed(victimKey),
                        "the victim's loss was found by a batch that renewed other leases: " + store.calls);
            }
            LockLostException lost = assertThrows(LockLostException.class, victim::close);
            assertEquals(victimKey, lost.key());
            assertTrue(thief.isValid(), "the new owner keeps the key");
            for (LockHandle other : kept) {
                other.close();
            }
            thief.close();
        }
    }

    /**
     * The real store, with the renewals of one key held back from it on demand (answered as renewed,
     * as a holder's view would be while its requests never arrive), and each call's answers recorded.
     */
    final class HeldBackRenewals extends DelegatingRepository {
        final AtomicBoolean holdBack = new AtomicBoolean();
        /** Per call to the store: each key sent, and whether it was renewed. */
        final List<Map<String, Boolean>> calls = new CopyOnWriteArrayList<>();
        private final String heldBackKey;

        HeldBackRenewals(LockRepository delegate, String heldBackKey) {
            super(delegate);
            this.heldBackKey = heldBackKey;
        }

        @Override
        public int renewalBatchSize() {
            return delegate.renewalBatchSize();
        }

        @Override
        public Lease renewLease(Lease lease, Duration duration) {
            return renewLeases(List.of(lease), duration).get(0);
        }

        @Override
        public List<Lease> renewLeases(List<Lease> leases, Duration duration) {
            boolean holding = holdBack.get();
            List<Lease> sent = leases.stream().filter(lease -> !(holding && lease.key().equals(heldBackKey))).toList();
            List<Lease> answers = sent.isEmpty() ? List.of() : delegate.renewLeases(sent, duration);
            Map<String, Boolean> call = new HashMap<>();
            Map<String, Lease> byKey = new HashMap<>();
            for (int i = 0; i < sent.size(); i++) {
                call.put(sent.get(i).key(), answers.get(i) != null);
                byKey.put(sent.get(i).key(), answers.get(i));
            }
            if (!sent.isEmpty()) {
                calls.add(call);
            }
            List<Lease> all = new ArrayList<>();
            for (Lease lease : leases) {
                all.add(byKey.containsKey(lease.key()) ? byKey.get(lease.key()) : lease);
            }
            return all;
        }

        int renewalsOf(String key, int fromCall) {
            int renewed = 0;
            // a copy first: a sub-list of a copy-on-write list fails once the watchdog adds a call (seen in CI)
            List<Map<String, Boolean>> seen = List.copyOf(calls);
            for (Map<String, Boolean> call : seen.subList(fromCall, seen.size())) {
                if (Boolean.TRUE.equals(call.get(key))) {
                    renewed++;
                }
            }
            return renewed;
        }

        boolean lostWithOthersRenewed(String key) {
            return calls.stream().anyMatch(call -> Boolean.FALSE.equals(call.get(key))
                    && call.values().stream().filter(Boolean.TRUE::equals).count() > 0);
        }
    }
}
