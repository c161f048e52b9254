package io.locked.jpa.internal.nativepath;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.jpa.LockDatabase;
import io.locked.jpa.internal.dialect.Dialects;
import io.locked.jpa.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * MariaDB's takes of rows met ({@link InsertIdTakes}): a key not met yet, and a remembered key whose row a
 * cleanup deleted, are left to the upsert (null), never answered "no row", which would make the store create
 * the row apart; a met key's row is taken, or found held; the memory starts again past its bound.
 */
class InsertIdTakesTest {
    private static final long LEASE_MICROS = 30_000_000L;
    /** A store made once makes the lock table; the statements run on connections of their own. */
    @BeforeAll
    static void makeTheTable() {
        TestDatabase.MARIADB.open(1).close();
    }

    @Test
    void onlyAMetKeyIsTakenByItsRowAndAGoneRowIsLeftToTheUpsert() throws SQLException {
        InsertIdTakes takes = new InsertIdTakes(Dialects.of(LockDatabase.MARIADB));
        String key = "insert-id-take:" + UUID.randomUUID();
        try (Connection connection = TestDatabase.MARIADB.connect()) {
            insertRow(connection, key, null);
            assertNull(takes.take(connection, key, "me", "my holder", LEASE_MICROS, 1000), "a key not met yet");
            takes.rowMet(key);
            String heldFirst = "insert-id-held:" + UUID.randomUUID();
            insertRow(connection, heldFirst, "someone else");
            takes.rowMet(heldFirst);
            assertNull(takes.take(connection, heldFirst, "me", "my holder", LEASE_MICROS, 1000),
                    "no insert id before any take gave one: the upsert must tell a held key from a driver without them");
            LeaseTake taken = takes.take(connection, key, "me", "my holder", LEASE_MICROS, 1000);
            assertNotNull(taken, "a met key");
            assertNotNull(taken.lease(), "the free row of a met key was not taken");
            assertTrue(taken.lease().token() > 1000, "token " + taken.lease().token());

            LeaseTake held = takes.take(connection, key, "someone else", "their holder", LEASE_MICROS, 1000);
            assertEquals(LeaseTake.HELD, held, "the live lease of another owner");

            delete(connection, key); // as a cleanup does
            assertNull(takes.take(connection, key, "me", "my holder", LEASE_MICROS, 1000), "a met key whose row is gone");
            insertRow(connection, key, null);
            assertNull(takes.take(connection, key, "me", "my holder", LEASE_MICROS, 1000),
                    "a key whose row was gone is met again only through the upsert");
        }
    }

    @Test
    void theMemoryStartsAgainPastItsBound() throws SQLException {
        InsertIdTakes takes = new InsertIdTakes(Dialects.of(LockDatabase.MARIADB));
        String first = "insert-id-bound:" + UUID.randomUUID();
        try (Connection connection = TestDatabase.MARIADB.connect()) {
            insertRow(connection, first, null);
            takes.rowMet(first);
            for (int i = 1; i < InsertIdTakes.KEYS_REMEMBERED; i++) {
                takes.rowMet(first + "/" + i);
            }
            LeaseTake stillMet = takes.take(connection, first, "me", "my holder", LEASE_MICROS, 1000);
            assertNotNull(stillMet, "the first of " + InsertIdTakes.KEYS_REMEMBERED + " keys was forgotten");
            takes.rowMet(first + "/past the bound");
            assertNull(takes.take(connection, first, "me", "my holder", LEASE_MICROS, 1000),
                    "a key met before the bound was passed should be forgotten once it is passed");
        }
    }

    @Test
    void databasesWithoutTheRowTakeRememberNothing() throws SQLException {
        InsertIdTakes takes = new InsertIdTakes(Dialects.of(LockDatabase.POSTGRESQL));
        takes.rowMet("any");
        assertFalse(takes.remembers("any"), "PostgreSQL has no take of a row as an UPDATE");
    }

    /** A row with a token of 1000; an owner's lease runs an hour. */
    private static void insertRow(Connection connection, String key, String owner) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO locked_lock (lock_key, owner, expires_at,"
                + " version, token) VALUES (?, ?, CASE WHEN ? IS NULL THEN NULL ELSE UTC_TIMESTAMP(6) + INTERVAL 1 HOUR END,"
                + " 0, 1000)")) {
            insert.setString(1, key);
            insert.setString(2, owner);
            insert.setString(3, owner);
            insert.executeUpdate();
        }
    }

    private static void delete(Connection connection, String key) throws SQLException {
        try (PreparedStatement delete = connection.prepareStatement("DELETE FROM locked_lock WHERE lock_key = ?")) {
            delete.setString(1, key);
            delete.executeUpdate();
        }
    }
}
