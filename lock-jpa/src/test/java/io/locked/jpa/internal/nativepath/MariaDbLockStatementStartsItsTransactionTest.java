package io.locked.jpa.internal.nativepath;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.jpa.LockDatabase;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.transaction.LockTransaction;
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
 * On MariaDB a pessimistic acquisition sends no {@code START TRANSACTION} of its own: the lock statement, in an
 * anonymous compound statement, starts the transaction in its round trip ({@link LockTransaction#started}). The
 * transaction it starts holds the row lock until it ends, on a connection left in autocommit as the pool lent it;
 * a busy lock statement leaves the transaction for the close to roll back, and the connection goes back with
 * none open. MySQL and PostgreSQL have no such form: they start it as before.
 */
class MariaDbLockStatementStartsItsTransactionTest {
    private static final Dialect MARIADB = Dialect.of(LockDatabase.MARIADB);

    @BeforeAll
    static void makeTheTable() {
        TestDatabase.MARIADB.open(1).close();
    }

    @Test
    void theLockStatementStartsTheTransactionThatHoldsTheRow() throws SQLException {
        try (Connection connection = TestDatabase.MARIADB.connect(); Connection other = TestDatabase.MARIADB.connect()) {
            String key = "start-with:" + UUID.randomUUID();
            LockTransaction transaction = LockTransaction.begin(lending(connection), true, MARIADB.transactionStartWith(),
                    CallBounds.brief());
            try {
                assertFalse(inTransaction(connection), "a transaction started before the lock statement");
                DrawnToken drawn = new LockStatement(MARIADB).draw(connection, transaction::started, key, "holder", 0, false);
                assertNotNull(drawn, "the lock statement's row");
                assertTrue(drawn.free(), "a new key is free");
                assertTrue(inTransaction(connection), "no transaction after the lock statement");
                assertTrue(connection.getAutoCommit(), "the connection's autocommit changed");
                assertTrue(rowLockedElsewhere(other, key), "the row is not locked by the lock statement's transaction");
                assertEquals("SELECT 1", transaction.started("SELECT 1"), "a later statement is sent as it is");
                transaction.commit();
                assertFalse(inTransaction(connection), "the commit left a transaction open");
                assertFalse(rowLockedElsewhere(other, key), "the row is still locked after the commit");
            } finally {
                transaction.close();
            }
            assertTrue(connection.getAutoCommit(), "the connection went back without autocommit");
        }
    }

    @Test
    void aBusyLockStatementLeavesNoTransactionOpenAfterTheClose() throws SQLException {
        try (Connection connection = TestDatabase.MARIADB.connect(); Connection holder = TestDatabase.MARIADB.connect()) {
            String key = "start-with-busy:" + UUID.randomUUID();
            LockTransaction first = LockTransaction.begin(lending(connection), true, MARIADB.transactionStartWith(),
                    CallBounds.brief());
            new LockStatement(MARIADB).draw(connection, first::started, key, "holder", 0, false);
            first.commit();
            first.close();
            holder.setAutoCommit(false);
            assertFalse(rowLockedElsewhere(holder, key), "the row should be free for the holder");
            try {
                LockTransaction transaction = LockTransaction.begin(lending(connection), true,
                        MARIADB.transactionStartWith(), CallBounds.brief());
                SQLException busy = assertThrows(SQLException.class,
                        () -> new LockStatement(MARIADB).draw(connection, transaction::started, key, "holder", 0, false));
                assertTrue(LockConflicts.isBusy(busy), "not told as busy: " + busy);
                transaction.close();
                assertFalse(inTransaction(connection), "the close left the transaction the lock statement started");
                assertTrue(connection.getAutoCommit(), "the connection went back without autocommit");
            } finally {
                holder.rollback();
            }
        }
    }

    @Test
    void databasesWithoutTheFormStartTheirTransactionsAsBefore() {
        assertNull(Dialect.of(LockDatabase.MYSQL).transactionStartWith(), "MySQL has no anonymous compound statement");
        assertNull(Dialect.of(LockDatabase.POSTGRESQL).transactionStartWith(), "PostgreSQL starts with its statement");
        assertNull(Dialect.of(LockDatabase.H2).transactionStartWith(), "H2 starts with its statement");
    }

    /** The one connection, lent and given back without closing it, so that the test can look at it after. */
    private static LockConnections lending(Connection connection) {
        return new LockConnections() {
            @Override
            public Connection open() {
                return connection;
            }

            @Override
            public Connection open(long waitNanos) {
                return connection;
            }

            @Override
            public void close(Connection lent) {
                // kept open for the test's looks
            }

            @Override
            public String describe() {
                return "one connection";
            }
        };
    }

    private static boolean inTransaction(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery("SELECT @@in_transaction")) {
            row.next();
            return row.getInt(1) == 1;
        }
    }

    /** Locks the row on the other connection (its transaction, if one is open, keeps the lock), or finds it locked. */
    private static boolean rowLockedElsewhere(Connection other, String key) throws SQLException {
        try (PreparedStatement lock = other.prepareStatement(
                "SELECT lock_key FROM locked_lock WHERE lock_key = ? FOR UPDATE NOWAIT")) {
            lock.setString(1, key);
            lock.executeQuery().close();
            return false;
        } catch (SQLException locked) {
            if (LockConflicts.isBusy(locked)) {
                return true;
            }
            throw locked;
        }
    }
}
