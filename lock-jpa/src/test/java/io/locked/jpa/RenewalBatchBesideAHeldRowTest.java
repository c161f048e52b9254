package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.jpa.testing.LockWaitsAndClock;
import io.locked.jpa.testing.OutsideRowLocks;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.Lease;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * On MySQL 8 and PostgreSQL a batch of renewals does not wait for a row that another session holds. MySQL
 * cannot bound a statement's lock wait below a second and ends such a wait up to two seconds late, so one
 * wait of the batch outlives a short lease, and every lease in the batch was lost with it (seen in a
 * randomized run: a long job's lease of 3 s, batched with the leases of busy keys); PostgreSQL's wait
 * ends within its bound (1 s of a 3 s lease, 5 s of a 30 s one), holding back every lease of the batch
 * meanwhile, and then fails the whole batch. The outside row lock stands for a pessimistic holder that
 * took a key whose lease was released while the renewal was on its way, and for an acquirer that holds a
 * live lease's row for a moment. Native path: the JPA path renews lease by lease.
 */
@Tag(TestDatabase.SIDE_BY_SIDE)
class RenewalBatchBesideAHeldRowTest {
    /** Short: its bound is MySQL's shortest lock wait, a second, and that wait ends up to 2 s late. */
    private static final Duration SHORT = Duration.ofSeconds(3);
    private static final Duration LONG = Duration.ofSeconds(60);

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"MYSQL8", "POSTGRESQL"})
    @Timeout(60)
    void theBatchRenewsItsLeasesWithoutWaitingForAReleasedLeasesRowHeldElsewhere(TestDatabase database) throws Exception {
        try (Store store = database.open(4, Map.of(), settings -> settings.statements(LockStatements.NATIVE))) {
            JpaLockRepository locks = store.repository();
            String prefix = "beside-a-held-row:" + UUID.randomUUID() + ":";
            Lease released = locks.takeLease(prefix + "a-released", "owner-released", "test", LONG, Duration.ZERO);
            Lease first = locks.takeLease(prefix + "b-first", "owner-first", "test", LONG, Duration.ZERO);
            Lease second = locks.takeLease(prefix + "c-second", "owner-second", "test", LONG, Duration.ZERO);
            assertTrue(locks.releaseLease(released));
            try (Connection holder = OutsideRowLocks.heldElsewhere(database, released.key())) {
                // were it to wait for the held row, it would fail after its lock wait (MySQL: 1 s, up to 3 s);
                // PostgreSQL's batches never lock a row whose lease ended, and pass here either way
                List<Lease> answers = locks.renewLeases(List.of(released, first, second), SHORT);
                assertNull(answers.get(0), "a released lease was renewed");
                assertNotNull(answers.get(1), "a live lease beside the held row was not renewed");
                assertNotNull(answers.get(2), "a live lease beside the held row was not renewed");
                holder.rollback();
            }
            assertTrue(locks.releaseLease(locks.renewLease(first, LONG)));
            assertTrue(locks.releaseLease(locks.renewLease(second, LONG)));
        }
    }

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"MYSQL8", "POSTGRESQL"})
    @Timeout(60)
    void aLeaseWhoseRowIsHeldForAMomentIsRenewedAloneAfterTheOthers(TestDatabase database) throws Exception {
        ExecutorService renewing = Executors.newSingleThreadExecutor();
        try (Store store = database.open(4, Map.of(), settings -> settings.statements(LockStatements.NATIVE))) {
            JpaLockRepository locks = store.repository();
            String prefix = "beside-a-held-row:" + UUID.randomUUID() + ":";
            Lease held = locks.takeLease(prefix + "a-held", "owner-held", "test", LONG, Duration.ZERO);
            Lease other = locks.takeLease(prefix + "b-other", "owner-other", "test", LONG, Duration.ZERO);
            Instant otherUntil = locks.inspect(other.key()).orElseThrow().until();
            Future<List<Lease>> answers;
            try (Connection holder = OutsideRowLocks.heldElsewhere(database, held.key())) {
                // the lease of the held row, live as last committed, is renewed alone and waits for its row
                answers = renewing.submit(() -> locks.renewLeases(List.of(held, other), LONG.multipliedBy(2)));
                LockWaitsAndClock.awaitRowLockWait(database);
                Instant renewedUntil = locks.inspect(other.key()).orElseThrow().until();
                assertTrue(renewedUntil.isAfter(otherUntil), "the batch's other lease waited for the held row: its lease"
                        + " still ends at " + renewedUntil);
                holder.rollback();
            }
            List<Lease> renewed = answers.get(30, TimeUnit.SECONDS);
            assertNotNull(renewed.get(0), "the lease whose row was held for a moment was not renewed");
            assertNotNull(renewed.get(1), "the batch's other lease was not renewed");
            assertEquals(held.token(), renewed.get(0).token());
            assertTrue(locks.releaseLease(renewed.get(0)));
            assertTrue(locks.releaseLease(renewed.get(1)));
        } finally {
            renewing.shutdownNow();
        }
    }

}
