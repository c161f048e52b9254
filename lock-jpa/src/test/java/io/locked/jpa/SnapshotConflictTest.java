package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.LockRepository;
import io.locked.spi.PessimisticHold;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What MariaDB says when a write meets a row changed since its transaction's snapshot, under
 * {@code innodb_snapshot_isolation=ON} (11.8's default): error 1020, which rolls the transaction back. The
 * JPA path's compare-and-set (a plain read, then a write if the row did not change) meets it when another
 * JVM's write commits in between, and must read again as after any lost write, not report the store
 * failed. Made to happen here with two connections, and classified as the store classifies it.
 */
class SnapshotConflictTest {
    private static final Map<String, String> SNAPSHOT_ISOLATION = Map.of("sessionVariables", "innodb_snapshot_isolation=ON");

    /**
     * A hold's second row lock ({@code lockAnotherRow}: a pessimistic writer takes the key's shared row so) that
     * meets error 1020 has lost the key's row lock too: MariaDB rolled the whole transaction back, its token
     * with it, while the connection lives on. The look answers as for a missing row (give the hold back, try
     * again: a lost race, not a store failure); the hold counts as lost from then on, and never runs its next
     * statement in the new transaction that would follow, which would seem to lock the other row "beside" a row
     * lock that is gone (the JPA path's store contract once drew a writer's token below an earlier holder's so:
     * the core tried a failed look once more). Seen failing before the fix: the hold stayed alive, and the second
     * try answered LOCKED.
     */
    @ParameterizedTest
    @EnumSource(value = LockStatements.class, names = {"JPA", "NATIVE"})
    void aHoldWhoseTransactionASnapshotConflictEndedCountsAsLost(LockStatements path) throws Exception {
        String held = "snapshot-hold:" + UUID.randomUUID();
        String beside = "snapshot-beside:" + UUID.randomUUID();
        try (Store store = TestDatabase.MARIADB.open(3, SNAPSHOT_ISOLATION, settings -> settings.statements(path));
             Connection outside = TestDatabase.MARIADB.connect()) {
            LockRepository repository = store.repository();
            assertTrue(repository.createRow(beside));
            outside.setAutoCommit(false);
            lockedFromOutside(outside, beside, "LOCK IN SHARE MODE"); // a reader group of another JVM
            PessimisticHold hold = repository.lockPessimistic(held, "owner", "holder", Duration.ofSeconds(2));
            // the look finds the row shared elsewhere; telling busy from missing reads the row: the transaction's snapshot
            assertEquals(PessimisticHold.AnotherRow.BUSY, hold.lockAnotherRow(beside, false));
            outside.rollback();
            try (Statement change = outside.createStatement()) {
                change.executeUpdate("UPDATE locked_lock SET version = version + 1 WHERE lock_key = '" + beside + "'");
            }
            outside.commit();
            // the look meets the snapshot conflict: a race lost, which the caller answers by giving the hold back
            // and trying again (a store failure would fail the caller's acquisition)
            assertEquals(PessimisticHold.AnotherRow.ABSENT, hold.lockAnotherRow(beside, false));
            assertTrue(rowLockFree(outside, held), "MariaDB ended the hold's transaction: the key's row lock is gone");
            outside.rollback();
            assertFalse(hold.isAlive(Duration.ofSeconds(2)), "a hold whose row lock is gone is not alive");
            assertThrows(LockStoreUnavailableException.class, () -> hold.lockAnotherRow(beside, false),
                    "a second try would lock the row in a new transaction, beside no row lock");
            assertTrue(rowLockFree(outside, beside), "the second try locked nothing");
            outside.rollback();
            assertFalse(hold.release(), "its release reports the loss");
        }
    }

    /** Whether another session locks the key's row (or its place: a row its creator rolled back) without waiting. */
    private static boolean rowLockFree(Connection outside, String key) {
        try {
            lockedFromOutside(outside, key, "FOR UPDATE NOWAIT");
            return true;
        } catch (SQLException held) {
            return false;
        }
    }

    private static boolean lockedFromOutside(Connection outside, String key, String lockClause) throws SQLException {
        try (PreparedStatement lock = outside.prepareStatement("SELECT lock_key FROM locked_lock WHERE lock_key = ? " + lockClause)) {
            lock.setString(1, key);
            try (ResultSet row = lock.executeQuery()) {
                return row.next();
            }
        }
    }

    /** A store on either path starts where the unit's sessions run under snapshot isolation. */
    @ParameterizedTest
    @EnumSource(value = LockStatements.class, names = {"JPA", "NATIVE"})
    void bothPathsStartUnderSnapshotIsolation(LockStatements path) {
        try (Store store = TestDatabase.MARIADB.open(2, SNAPSHOT_ISOLATION, settings -> settings.statements(path))) {
            assertEquals(path, store.repository().statements());
        }
    }

    @Test
    void aWriteToARowChangedSinceTheSnapshotIsAWriteConflictNotAFailure() throws Exception {
        String table = "snapshot_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (HikariDataSource pool = TestDatabase.MARIADB.pool(2, SNAPSHOT_ISOLATION);
             Connection reader = pool.getConnection();
             Connection writer = pool.getConnection()) {
            try (Statement ddl = writer.createStatement()) {
                ddl.execute("CREATE TABLE " + table + " (id INT PRIMARY KEY, version INT) ENGINE=InnoDB");
                ddl.execute("INSERT INTO " + table + " VALUES (1, 1)");
            }
            try {
                reader.setAutoCommit(false);
                try (Statement read = reader.createStatement()) {
                    read.executeQuery("SELECT version FROM " + table + " WHERE id = 1").close(); // the snapshot
                }
                try (Statement other = writer.createStatement()) {
                    other.executeUpdate("UPDATE " + table + " SET version = 2 WHERE id = 1"); // commits (autocommit)
                }
                SQLException conflict = assertThrows(SQLException.class, () -> {
                    try (Statement write = reader.createStatement()) {
                        write.executeUpdate("UPDATE " + table + " SET version = 3 WHERE id = 1 AND version = 1");
                    }
                });
                reader.rollback();
                assertEquals(1020, conflict.getErrorCode(), conflict.toString());
                assertTrue(LockConflicts.isWriteConflict(conflict), "a lost write: read again");
                assertFalse(LockConflicts.isFailure(conflict), "not a failure of the store");
            } finally {
                reader.setAutoCommit(true);
                try (Statement ddl = writer.createStatement()) {
                    ddl.execute("DROP TABLE " + table);
                }
            }
        }
    }
}
