package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.Lease;
import io.locked.spi.PessimisticHold;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A key whose row another transaction is creating (a forced release that re-creates the row of a
 * rolled-back holder, another JVM's first lock of the key) is busy, not a store failure. H2 ends a
 * lock wait that runs out with a {@code SQLTimeoutException}, and Hikari, the usual pool, drops any
 * connection that threw one and closes its handle: the lock must not use that handle again (it
 * would fail with Hikari's "Connection is closed"), and must give the pool every connection back.
 */
class H2BusyRowCreationTest {

    @ParameterizedTest
    @EnumSource(value = LockStatements.class, names = {"NATIVE", "JPA"})
    void aLeaseTakeOfARowBeingCreatedElsewhereIsBusy(LockStatements path) throws Exception {
        try (Store store = TestDatabase.H2.open(2, Map.of(), settings -> settings.statements(path))) {
            String key = "row-being-created:" + UUID.randomUUID();
            try (Connection creator = uncommittedRowOf(key)) {
                assertNull(store.repository().takeLease(key, "owner-1", "test", Duration.ofSeconds(30), Duration.ZERO),
                        "a lease was taken on a row another transaction holds");
                assertEquals(0, store.borrowedConnections(), "connections still borrowed");
                creator.rollback();
            }
            Lease lease = store.repository().takeLease(key, "owner-1", "test", Duration.ofSeconds(30), Duration.ZERO);
            assertNotNull(lease, "the take found the key busy once the other creation was rolled back");
            store.repository().releaseLease(lease);
        }
    }

    @ParameterizedTest
    @EnumSource(value = LockStatements.class, names = {"NATIVE", "JPA"})
    void aPessimisticLockOfARowBeingCreatedElsewhereIsBusy(LockStatements path) throws Exception {
        try (Store store = TestDatabase.H2.open(2, Map.of(), settings -> settings.statements(path))) {
            String key = "row-being-created:" + UUID.randomUUID();
            try (Connection creator = uncommittedRowOf(key)) {
                assertNull(store.repository().lockPessimistic(key, "owner-1", "test", Duration.ZERO),
                        "a pessimistic lock was taken on a row another transaction holds");
                assertEquals(0, store.borrowedConnections(), "connections still borrowed");
                creator.rollback();
            }
            PessimisticHold hold = store.repository().lockPessimistic(key, "owner-1", "test", Duration.ZERO);
            assertNotNull(hold, "the lock found the key busy once the other creation was rolled back");
            hold.release();
            assertEquals(0, store.borrowedConnections(), "connections still borrowed after the release");
        }
    }

    /** A connection outside the pool whose open transaction has inserted the key's row. */
    private static Connection uncommittedRowOf(String key) throws SQLException {
        Connection creator = TestDatabase.H2.connect();
        try {
            creator.setAutoCommit(false);
            try (PreparedStatement insert = creator.prepareStatement(
                    "INSERT INTO locked_lock (lock_key, version, token) VALUES (?, 0, 0)")) {
                insert.setString(1, key);
                insert.executeUpdate();
            }
            return creator;
        } catch (SQLException | RuntimeException failure) {
            creator.close();
            throw failure;
        }
    }
}
