package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.jpa.testing.LockWaitsAndClock;
import io.locked.jpa.testing.OutsideRowLocks;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.Lease;
import io.locked.spi.LockRowState;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A renewal judges its lease on a clock read at the row, after its row lock was granted. A lease
 * that ran out while its renewal waited for the row, which another acquirer held meanwhile and then
 * rolled back (a pessimistic holder with clock tokens, or one whose session ended: its writes are
 * gone, the row is as the lease left it), is lost: renewed, it would come back to life after another
 * holder had the key, and its holder would never learn that it had lost it. The outside row lock
 * stands for that acquirer. Alone and in a batch, on both paths.
 */
// keys of its own, and mostly a wait for leases to run out: beside the store contract
@Tag(TestDatabase.SIDE_BY_SIDE)
class RenewalJudgedAtTheRowTest {
    /** Long enough for the renewal to be seen waiting before the lease ends; checked, not assumed. */
    private static final Duration LEASE = Duration.ofSeconds(4);
    /** Its third bounds the renewal's call, and half of that the statement's wait on the server: both well past the lease. */
    private static final Duration RENEWED = Duration.ofSeconds(60);

    static Stream<Arguments> storesAndPaths() {
        List<Arguments> cases = new ArrayList<>();
        for (TestDatabase database : List.of(TestDatabase.H2, TestDatabase.MARIADB, TestDatabase.MYSQL8, TestDatabase.POSTGRESQL)) {
            for (LockStatements path : List.of(LockStatements.NATIVE, LockStatements.JPA)) {
                cases.add(Arguments.of(database, path, false));
                cases.add(Arguments.of(database, path, true));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1}, in a batch: {2}")
    @MethodSource("storesAndPaths")
    @Timeout(120)
    void aLeaseThatRanOutWhileItsRenewalWaitedForItsRowIsLost(TestDatabase database, LockStatements path, boolean batched)
            throws Exception {
        // H2's lock wait is the session's, 2 s by default: long enough here for the lease to run out
        Map<String, String> driver = database == TestDatabase.H2 ? Map.of("LOCK_TIMEOUT", "60000") : Map.of();
        ExecutorService renewing = Executors.newSingleThreadExecutor();
        try (Store store = database.open(4, driver, settings -> settings.statements(path))) {
            JpaLockRepository locks = store.repository();
            String prefix = "judged-at-the-row:" + UUID.randomUUID() + ":";
            Lease lease = locks.takeLease(prefix + "ran-out", "owner-ran-out", "test", LEASE, Duration.ZERO);
            Lease live = locks.takeLease(prefix + "live", "owner-live", "test", RENEWED, Duration.ZERO);
            Instant end = locks.inspect(lease.key()).orElseThrow().until();
            List<Lease> renewals = batched ? List.of(lease, live) : List.of(lease);
            Future<List<Lease>> answers;
            try (Connection acquirer = database.connect()) {
                OutsideRowLocks.lock(acquirer, lease.key());
                answers = renewing.submit(() -> batched ? locks.renewLeases(renewals, RENEWED)
                        : Collections.singletonList(locks.renewLease(lease, RENEWED)));
                LockWaitsAndClock.awaitRowLockWait(database);
                Assumptions.assumeTrue(LockWaitsAndClock.clock(database).isBefore(end),
                        "the renewal was seen waiting only after the lease's end: this run cannot tell");
                LockWaitsAndClock.awaitClockPast(database, end);
                acquirer.rollback();
            }
            List<Lease> renewed = answers.get(60, TimeUnit.SECONDS);
            assertNull(renewed.get(0), "a lease that ran out at " + end + " while its renewal waited for its row was renewed");
            if (batched) {
                assertNotNull(renewed.get(1), "the live lease of the batch is renewed");
            }
            LockRowState row = locks.inspect(lease.key()).orElseThrow();
            assertFalse(row.held(), "the lease that ran out stays run out: " + row);
            assertTrue(locks.releaseLease(batched ? renewed.get(1) : live));
        } finally {
            renewing.shutdownNow();
        }
    }
}
