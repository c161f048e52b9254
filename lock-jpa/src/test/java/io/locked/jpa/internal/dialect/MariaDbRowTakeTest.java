package io.locked.jpa.internal.dialect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.jpa.LockDatabase;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * MariaDB's take of an existing row as an {@code UPDATE} ({@link RowStatements#takeRowText}) answers as its
 * upsert does, by the rows found and the insert id: a free row, an expired lease and the caller's own lease are
 * taken with a token above the row's, written with owner, holder, version and lease; a live lease of another owner
 * is left as it was, with no token given; a missing row is found as none; a row another transaction locks is busy
 * once the wait runs out. In both of MariaDB's orders of
 * assignment: each assignment seeing the ones before it (the default), and all seeing the row as it was
 * ({@code SIMULTANEOUS_ASSIGNMENT}).
 */
class MariaDbRowTakeTest {
    private static final Dialect MARIADB = Dialects.of(LockDatabase.MARIADB);
    private static final long LEASE_MICROS = 30_000_000L;
    /** A store made once makes the lock table; the statements run on connections of their own. */
    @BeforeAll
    static void makeTheTable() {
        TestDatabase.MARIADB.open(1).close();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void freeExpiredAndOwnRowsAreTakenAndALiveLeaseIsNot(boolean simultaneous) throws SQLException {
        try (Connection connection = TestDatabase.MARIADB.connect()) {
            assignInOrder(connection, simultaneous);
            String free = newRow(connection, null, "NULL", 5);
            assertTaken(connection, free, 5, simultaneous);
            String expired = newRow(connection, "other-owner", "UTC_TIMESTAMP(6) - INTERVAL 1 SECOND", 7);
            assertTaken(connection, expired, 7, simultaneous);
            String own = newRow(connection, "me", "UTC_TIMESTAMP(6) + INTERVAL 1 HOUR", 9);
            assertTaken(connection, own, 9, simultaneous);
            // a token ahead of the clock (a clock stepped back): the next is the row's plus one
            String ahead = newRow(connection, null, "NULL", 13);
            long aheadToken = clockMicros(connection) + 3_600_000_000L;
            setToken(connection, ahead, aheadToken);
            assertEquals(1, take(connection, ahead), "rows found");
            assertEquals(aheadToken + 1, lastToken, "the token after one ahead of the clock");

            String live = newRow(connection, "other-owner", "UTC_TIMESTAMP(6) + INTERVAL 1 HOUR", 11);
            Object[] before = row(connection, live);
            assertEquals(1, take(connection, live), "rows found");
            assertNull(lastToken, "a token was given for a live lease of another owner");
            Object[] after = row(connection, live);
            for (int column = 0; column < before.length; column++) {
                assertEquals(before[column], after[column], "column " + column + " of a live lease changed");
            }

            assertEquals(0, take(connection, "row-take-missing:" + UUID.randomUUID()), "rows found for a missing row");
        }
    }

    @Test
    void aRowLockedByAnotherTransactionIsBusyOnceTheWaitRunsOut() throws SQLException {
        try (Connection holder = TestDatabase.MARIADB.connect(); Connection taker = TestDatabase.MARIADB.connect()) {
            String key = newRow(holder, null, "NULL", 1);
            holder.setAutoCommit(false);
            try (PreparedStatement lock = holder.prepareStatement("SELECT 1 FROM locked_lock WHERE lock_key = ? FOR UPDATE")) {
                lock.setString(1, key);
                lock.executeQuery().close();
            }
            try {
                SQLException busy = assertThrows(SQLException.class, () -> take(taker, key, 0));
                assertTrue(LockConflicts.isBusy(busy), "not told as busy: " + busy);
            } finally {
                holder.rollback();
            }
            assertEquals(1, take(taker, key, 0), "rows found once the row is free");
            assertTrue(lastToken != null, "not taken once the row is free");
        }
    }

    private Long lastToken;

    private int take(Connection connection, String key) throws SQLException {
        return take(connection, key, 1000);
    }

    private int take(Connection connection, String key, long waitMillis) throws SQLException {
        lastToken = null;
        try (Statement take = connection.createStatement()) {
            int found = take.executeUpdate(MARIADB.takeRowText("me", "my holder", LEASE_MICROS, key, waitMillis),
                    Statement.RETURN_GENERATED_KEYS);
            try (ResultSet token = take.getGeneratedKeys()) {
                if (token.next()) {
                    lastToken = token.getLong(1);
                }
            }
            return found;
        }
    }

    private void assertTaken(Connection connection, String key, long version, boolean simultaneous) throws SQLException {
        long clock = clockMicros(connection);
        assertEquals(1, take(connection, key), "rows found");
        String how = (simultaneous ? "simultaneous assignment: " : "") + key;
        assertTrue(lastToken != null, "no token given for " + how);
        Object[] row = row(connection, key);
        assertEquals(lastToken, row[0], "the token given is the row's: " + how);
        assertTrue(lastToken >= clock, "the token " + lastToken + " is not the clock's reading (before: " + clock + "): " + how);
        assertEquals(version + 1, row[1], "version: " + how);
        assertEquals("me", row[2], "owner: " + how);
        assertEquals("my holder", row[3], "holder: " + how);
        // the expiry is its length after a second reading of the clock, made after the grant's
        long leaseMicros = (long) row[5] - (long) row[4];
        assertTrue(leaseMicros >= LEASE_MICROS && leaseMicros < LEASE_MICROS + 1_000_000,
                "the lease from acquired_at to expires_at is " + leaseMicros + " µs: " + how);
        assertFalse((long) row[4] < clock, "acquired_at before the take: " + how);
    }

    /** @return a new key whose row has that owner, expiry and version, and a token of 1000 */
    private static String newRow(Connection connection, String owner, String expiresAt, long version) throws SQLException {
        String key = "row-take:" + UUID.randomUUID();
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO locked_lock (lock_key, owner, holder,"
                + " acquired_at, expires_at, version, token) VALUES (?, ?, 'first holder', UTC_TIMESTAMP(6), " + expiresAt
                + ", ?, 1000)")) {
            insert.setString(1, key);
            insert.setString(2, owner);
            insert.setLong(3, version);
            insert.executeUpdate();
        }
        return key;
    }

    private static void assignInOrder(Connection connection, boolean simultaneous) throws SQLException {
        try (Statement set = connection.createStatement()) {
            set.execute(simultaneous ? "SET SESSION sql_mode = CONCAT_WS(',', NULLIF(@@sql_mode, ''), 'SIMULTANEOUS_ASSIGNMENT')"
                    : "SET SESSION sql_mode = TRIM(BOTH ',' FROM REPLACE(@@sql_mode, 'SIMULTANEOUS_ASSIGNMENT', ''))");
            try (ResultSet mode = set.executeQuery("SELECT FIND_IN_SET('SIMULTANEOUS_ASSIGNMENT', @@sql_mode) > 0")) {
                assertTrue(mode.next());
                assertEquals(simultaneous, mode.getBoolean(1), "SIMULTANEOUS_ASSIGNMENT in the session's sql_mode");
            }
        }
    }

    private static void setToken(Connection connection, String key, long token) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE locked_lock SET token = ? WHERE lock_key = ?")) {
            update.setLong(1, token);
            update.setString(2, key);
            update.executeUpdate();
        }
    }

    /** token, version, owner, holder, acquired_at and expires_at in microseconds (UTC) */
    private static Object[] row(Connection connection, String key) throws SQLException {
        try (PreparedStatement read = connection.prepareStatement("SELECT token, version, owner, holder,"
                + " TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', acquired_at),"
                + " TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', expires_at) FROM locked_lock WHERE lock_key = ?")) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                assertTrue(row.next(), "the row of " + key);
                return new Object[] {row.getLong(1), row.getLong(2), row.getString(3), row.getString(4),
                        row.getObject(5) == null ? null : row.getLong(5), row.getObject(6) == null ? null : row.getLong(6)};
            }
        }
    }

    private static long clockMicros(Connection connection) throws SQLException {
        try (Statement read = connection.createStatement();
             ResultSet now = read.executeQuery("SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))")) {
            now.next();
            return now.getLong(1);
        }
    }
}
