package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockMode;
import io.locked.jpa.testing.LockWaitsAndClock;
import io.locked.jpa.testing.OutsideRowLocks;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.Lease;
import io.locked.spi.LockRowState;
import io.locked.spi.PessimisticHold;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A minimum hold keeps the key taken until that long after the acquisition, and an acquisition that
 * waited for its row lock is acquired when the lock was granted, not when its statement started: the
 * hold is not shortened by the wait. The row is locked from outside while the acquisition waits for
 * it; the database's clock read just before that lock ends is a time before the grant. MySQL is not
 * here: its lock statements never wait for a row lock (they answer "busy" at once, and the lock
 * manager asks again).
 */
class HoldCountsFromTheGrantTest {
    /** Long: nothing in this test measures time on this JVM, and the hold outlives it. */
    private static final Duration HOLD = Duration.ofMinutes(10);
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** The grant's clock and the test's may be two readings of the same clock in different forms (H2's). */
    private static final Duration CLOCK_SLACK = Duration.ofMillis(1);

    static Stream<Arguments> storesPathsAndModes() {
        List<Arguments> cases = new ArrayList<>();
        for (TestDatabase database : List.of(TestDatabase.H2, TestDatabase.MARIADB, TestDatabase.POSTGRESQL)) {
            for (LockStatements path : List.of(LockStatements.NATIVE, LockStatements.JPA)) {
                for (LockMode mode : LockMode.values()) {
                    cases.add(Arguments.of(database, path, mode));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("storesPathsAndModes")
    @Timeout(120)
    void aHoldCountsFromTheGrantOfAnAcquisitionThatWaitedForItsRow(TestDatabase database, LockStatements path, LockMode mode)
            throws Exception {
        // H2's lock wait is the session's, 2 s by default
        Map<String, String> driver = database == TestDatabase.H2 ? Map.of("LOCK_TIMEOUT", "60000") : Map.of();
        ExecutorService acquiring = Executors.newSingleThreadExecutor();
        try (Store store = database.open(4, driver, settings -> settings.statements(path))) {
            JpaLockRepository locks = store.repository();
            String key = "hold-from-grant:" + mode + ":" + UUID.randomUUID();
            assertTrue(locks.releaseLease(locks.takeLease(key, "owner-before", "test", WAIT, Duration.ZERO)));
            Future<?> acquired;
            Instant beforeGrant;
            try (Connection outside = database.connect()) {
                OutsideRowLocks.lock(outside, key);
                acquired = acquiring.submit(() -> acquireAndReleaseWithAHold(locks, key, mode));
                LockWaitsAndClock.awaitRowLockWait(database);
                beforeGrant = LockWaitsAndClock.clock(database);
                outside.rollback();
            }
            acquired.get(60, TimeUnit.SECONDS);
            LockRowState row = locks.inspect(key).orElseThrow();
            try {
                assertTrue(row.held(), "the hold keeps the key taken: " + row);
                // the start as the row shows it may have lost its fraction on its way in (the JPA path on
                // MariaDB through Connector/J), which the hold's end makes up for: only the end is the promise
                assertFalse(row.until().isBefore(beforeGrant.plus(HOLD).minus(CLOCK_SLACK)), "the hold of " + HOLD
                        + " ends at " + row.until() + ", less than that after the row lock was granted (after "
                        + beforeGrant + "): " + row);
            } finally {
                locks.forceRelease(key);
            }
        } finally {
            acquiring.shutdownNow();
        }
    }

    private static Void acquireAndReleaseWithAHold(JpaLockRepository locks, String key, LockMode mode) {
        if (mode == LockMode.OPTIMISTIC) {
            Lease lease = locks.takeLease(key, "owner-held", "test", WAIT, WAIT);
            assertNotNull(lease, "the take waited for the row and took it");
            assertTrue(locks.releaseLease(lease, HOLD));
        } else {
            PessimisticHold hold = locks.lockPessimistic(key, "owner-held", "test", WAIT);
            assertNotNull(hold, "the lock waited for the row and took it");
            assertTrue(hold.release(HOLD));
        }
        return null;
    }
}
