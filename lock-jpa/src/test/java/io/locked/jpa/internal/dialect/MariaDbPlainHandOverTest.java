package io.locked.jpa.internal.dialect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.jpa.LockDatabase;
import io.locked.jpa.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * MariaDB's plain hand-over ({@link RowStatements#handOverRowText}) on a row its transaction holds: where the
 * clock is above the row's token it writes the next holder with its session, the clock's reading as the token
 * (given as the insert id) and a new version; where the clock is not, it writes nothing, so that the lock
 * statement draws instead.
 */
class MariaDbPlainHandOverTest {
    private static final Dialect MARIADB = Dialects.of(LockDatabase.MARIADB);
    /** A store made once makes the lock table; the statements run on connections of their own. */
    @BeforeAll
    static void makeTheTable() {
        TestDatabase.MARIADB.open(1).close();
    }

    @Test
    void theNextHolderGetsTheClocksReadingAboveTheRowsToken() throws SQLException {
        String key = "plain-hand-over:" + UUID.randomUUID();
        try (Connection connection = TestDatabase.MARIADB.connect()) {
            long before = holdRowWithToken(connection, key, 1);
            long clock = clockMicros(connection);
            try (Statement handOver = connection.createStatement()) {
                assertEquals(1, handOver.executeUpdate(MARIADB.handOverRowText("next holder", key),
                        Statement.RETURN_GENERATED_KEYS), "rows written");
                long token;
                try (ResultSet keys = handOver.getGeneratedKeys()) {
                    assertTrue(keys.next(), "no token given as the insert id");
                    token = keys.getLong(1);
                }
                Object[] row = row(connection, key);
                assertEquals(token, row[0], "the token given is the row's");
                assertTrue(token >= clock, "the token " + token + " is not the clock's reading (read before: " + clock + ")");
                assertEquals(before + 1, row[1], "version");
                assertEquals("next holder db-session=" + sessionId(connection), row[2], "holder");
            } finally {
                connection.rollback();
            }
        }
    }

    @Test
    void aRowTokenAtOrAboveTheClockIsLeftAsItIs() throws SQLException {
        String key = "plain-hand-over-behind:" + UUID.randomUUID();
        try (Connection connection = TestDatabase.MARIADB.connect()) {
            long ahead = clockMicros(connection) + 3_600_000_000L;
            long version = holdRowWithToken(connection, key, ahead);
            try (Statement handOver = connection.createStatement()) {
                assertEquals(0, handOver.executeUpdate(MARIADB.handOverRowText("next holder", key),
                        Statement.RETURN_GENERATED_KEYS), "rows written though the clock is behind the token");
                Object[] row = row(connection, key);
                assertEquals(ahead, row[0], "token");
                assertEquals(version, row[1], "version");
                assertEquals("first holder", row[2], "holder");
            } finally {
                connection.rollback();
            }
        }
    }

    /** @return the row's version, once the connection's transaction holds the key's row with that token */
    private static long holdRowWithToken(Connection connection, String key, long token) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO locked_lock (lock_key, version, token, holder) VALUES (?, 3, ?, 'first holder')")) {
            insert.setString(1, key);
            insert.setLong(2, token);
            insert.executeUpdate();
        }
        connection.setAutoCommit(false);
        try (PreparedStatement lock = connection.prepareStatement("SELECT version FROM locked_lock WHERE lock_key = ? FOR UPDATE")) {
            lock.setString(1, key);
            try (ResultSet row = lock.executeQuery()) {
                assertTrue(row.next(), "the row of " + key);
                return row.getLong(1);
            }
        }
    }

    private static Object[] row(Connection connection, String key) throws SQLException {
        try (PreparedStatement read = connection.prepareStatement("SELECT token, version, holder FROM locked_lock WHERE lock_key = ?")) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                assertTrue(row.next(), "the row of " + key);
                return new Object[] {row.getLong(1), row.getLong(2), row.getString(3)};
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

    private static long sessionId(Connection connection) throws SQLException {
        try (Statement read = connection.createStatement(); ResultSet id = read.executeQuery("SELECT CONNECTION_ID()")) {
            id.next();
            return id.getLong(1);
        }
    }
}
