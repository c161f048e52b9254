package io.locked.jpa.testing;

import io.locked.jpa.JpaLockRepository;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A repository on a pooled test database, with the checks every suite makes at the end.
 *
 * @param database   which database
 * @param pool       its connection pool (Hikari's, or an enlisting one under a JTA unit)
 * @param factory    the EntityManagerFactory on that pool
 * @param repository the lock store
 */
public record Store(TestDatabase database, TestPool pool, EntityManagerFactory factory,
                    JpaLockRepository repository) implements AutoCloseable {

    /** @return connections borrowed from the pool right now */
    public int borrowedConnections() {
        return pool.borrowed();
    }

    /**
     * Counts transactions left open on the server by the test user in the test database, seen from
     * outside the pool (test JVMs running side by side use databases of their own).
     *
     * @return open transactions
     */
    public int openTransactionsOnServer() throws SQLException {
        if (database == TestDatabase.MARIADB || database == TestDatabase.MYSQL8) {
            try (Connection connection = database.connect()) {
                return InnoDbTransactions.activeSessions(connection, database.user()).size();
            }
        }
        String sql = switch (database) {
            case MARIADB, MYSQL8 -> throw new AssertionError("read from InnoDB's own list (InnoDbTransactions) above");
            case POSTGRESQL -> "SELECT COUNT(*) FROM pg_stat_activity WHERE usename = ? AND datname = current_database() AND pid <> pg_backend_pid()"
                    + " AND state LIKE 'idle in transaction%'";
            case H2 -> "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE USER_NAME = UPPER(?)"
                    + " AND SESSION_ID <> SESSION_ID() AND CONTAINS_UNCOMMITTED";
            // a transaction that wrote and has not ended (every lock transaction writes its token)
            case DERBY -> "SELECT COUNT(*) FROM SYSCS_DIAG.TRANSACTION_TABLE WHERE USERNAME = UPPER(?)"
                    + " AND FIRST_INSTANT IS NOT NULL";
            case HSQLDB -> "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SYSTEM_SESSIONS WHERE USER_NAME = ?"
                    + " AND SESSION_ID <> SESSION_ID() AND TRANSACTION";
        };
        try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, database.user());
            try (ResultSet result = statement.executeQuery()) {
                result.next();
                return result.getInt(1);
            }
        }
    }

    /**
     * Ends, from outside the pool, every session of the test user in the test database with a
     * transaction open, once the server shows at least one: a holder's transaction shows in the
     * server's views only once its statement is done. The caller's timeout bounds the wait for one
     * that never opens.
     *
     * @return how many sessions were ended, at least one
     */
    public int endSessionsInTransaction() throws SQLException, InterruptedException {
        int ended;
        while ((ended = endSessionsInTransactionSeenNow()) == 0) {
            Thread.sleep(20);
        }
        return ended;
    }

    private int endSessionsInTransactionSeenNow() throws SQLException {
        if (database == TestDatabase.MARIADB || database == TestDatabase.MYSQL8) {
            // InnoDB's own list (InnoDbTransactions), not its innodb_trx copy
            int ended;
            try (Connection connection = database.connect()) {
                ended = InnoDbTransactions.endActiveSessions(connection, database.user()).size();
            }
            pool.evictIdle();
            return ended;
        }
        String sql = switch (database) {
            case MARIADB, MYSQL8 -> throw new AssertionError("ended above");
            case POSTGRESQL -> "SELECT pid FROM pg_stat_activity WHERE usename = ? AND datname = current_database() AND pid <> pg_backend_pid()"
                    + " AND state LIKE 'idle in transaction%'";
            case H2 -> "SELECT SESSION_ID FROM INFORMATION_SCHEMA.SESSIONS WHERE USER_NAME = UPPER(?)"
                    + " AND SESSION_ID <> SESSION_ID() AND CONTAINS_UNCOMMITTED";
            case DERBY -> throw new UnsupportedOperationException("Derby cannot end another session");
            case HSQLDB -> "SELECT SESSION_ID FROM INFORMATION_SCHEMA.SYSTEM_SESSIONS WHERE USER_NAME = ?"
                    + " AND SESSION_ID <> SESSION_ID() AND TRANSACTION";
        };
        List<Long> sessions = new ArrayList<>();
        try (Connection connection = database.connect()) {
            try (PreparedStatement find = connection.prepareStatement(sql)) {
                find.setString(1, database.user());
                try (ResultSet rows = find.executeQuery()) {
                    while (rows.next()) {
                        sessions.add(rows.getLong(1));
                    }
                }
            }
            for (long session : sessions) {
                end(connection, session);
            }
        }
        pool.evictIdle();
        return sessions.size();
    }

    /**
     * Ends one session of the database from outside, as an operator (or a forced release) would,
     * whether it is in a transaction or idle in the pool.
     */
    public void endSession(long session) throws SQLException {
        try (Connection connection = database.connect()) {
            end(connection, session);
        }
    }

    private void end(Connection connection, long session) throws SQLException {
        String end = switch (database) {
            case MARIADB, MYSQL8 -> "KILL ?";
            case POSTGRESQL -> "SELECT pg_terminate_backend(?)";
            case H2 -> "SELECT ABORT_SESSION(?)";
            case DERBY -> throw new UnsupportedOperationException("Derby cannot end another session");
            // CLOSE leaves a session in a transaction alone: roll that back first
            case HSQLDB -> "ALTER SESSION ? RELEASE; ALTER SESSION ? CLOSE";
        };
        try (java.sql.Statement kill = connection.createStatement()) {
            kill.execute(end.replace("?", Long.toString(session)));
        }
    }

    /**
     * @param key a lock key
     * @return whether the key has a row, read past the repository
     */
    public boolean rowExists(String key) {
        try (Connection connection = pool.dataSource().getConnection();
             PreparedStatement statement = connection.prepareStatement("SELECT 1 FROM locked_lock WHERE lock_key = ?")) {
            statement.setString(1, key);
            try (ResultSet result = statement.executeQuery()) {
                return result.next();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        factory.close();
        pool.close();
    }
}
