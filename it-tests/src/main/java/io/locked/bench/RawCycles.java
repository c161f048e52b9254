package io.locked.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * What a developer would write by hand with JDBC on the same pool and the same table: the floors
 * every lock pays, and the raw form of each mode.
 */
final class RawCycles {
    private final DataSource pool;
    private final BenchDatabase database;

    RawCycles(DataSource pool, BenchDatabase database) {
        this.pool = pool;
        this.database = database;
    }

    /** The cheapest round trip. */
    void selectOne(String key, Runnable inside) throws SQLException {
        try (Connection connection = pool.getConnection();
             PreparedStatement select = connection.prepareStatement("SELECT 1");
             ResultSet result = select.executeQuery()) {
            result.next();
        }
    }

    /** The cheapest durable write: one row, one autocommit UPDATE. */
    void autocommitUpdate(String key, Runnable inside) throws SQLException {
        try (Connection connection = pool.getConnection();
             PreparedStatement update = connection.prepareStatement(
                     "UPDATE locked_lock SET version = version + 1 WHERE lock_key = ?")) {
            update.setString(1, key);
            update.executeUpdate();
        }
    }

    /** Pessimistic by hand: SELECT ... FOR UPDATE on an existing row, then COMMIT. */
    void selectForUpdate(String key, Runnable inside) throws SQLException {
        rowLock(key, inside, false);
    }

    /**
     * Pessimistic by hand with a fencing token: as {@link #selectForUpdate}, plus the write of the
     * next token that a fenced lock cannot do without. Not a target's baseline: a reference that
     * shows what the token write costs on this database.
     */
    void selectForUpdateWriteToken(String key, Runnable inside) throws SQLException {
        rowLock(key, inside, true);
    }

    private void rowLock(String key, Runnable inside, boolean writeToken) throws SQLException {
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT token FROM locked_lock WHERE lock_key = ? FOR UPDATE")) {
                select.setString(1, key);
                long token;
                try (ResultSet row = select.executeQuery()) {
                    row.next();
                    token = row.getLong(1) + 1;
                }
                if (writeToken) {
                    try (PreparedStatement write = connection.prepareStatement(
                            "UPDATE locked_lock SET token = ? WHERE lock_key = ?")) {
                        write.setLong(1, token);
                        write.setString(2, key);
                        write.executeUpdate();
                    }
                }
                inside.run();
                connection.commit();
            } catch (SQLException | RuntimeException failure) {
                connection.rollback();
                throw failure;
            }
        }
    }

    /**
     * Optimistic by hand: a conditional autocommit UPDATE takes a free or expired row, an UPDATE
     * frees it; a loser retries after a pause that doubles from 0.5 ms up to 50 ms, with jitter.
     */
    void conditionalUpdate(String key, Runnable inside) throws SQLException {
        String owner = Thread.currentThread().getName();
        takeWithBackoff(key, owner, "");
        inside.run();
        free(key, owner);
    }

    /**
     * Optimistic by hand with a fencing token: as {@link #conditionalUpdate}, but the take also
     * draws the next token from the database clock, and reads it back. Not a target's baseline: a
     * reference that shows what the token costs on this database.
     */
    void conditionalUpdateWithToken(String key, Runnable inside) throws SQLException {
        String owner = Thread.currentThread().getName();
        takeWithBackoff(key, owner, ", token = GREATEST(token + 1, " + database.nowMicros + ")");
        try (Connection connection = pool.getConnection();
             PreparedStatement read = connection.prepareStatement(
                     "SELECT token FROM locked_lock WHERE lock_key = ? AND owner = ?")) {
            read.setString(1, key);
            read.setString(2, owner);
            try (ResultSet row = read.executeQuery()) {
                row.next();
            }
        }
        inside.run();
        free(key, owner);
    }

    /** Retries the take after a pause that doubles from 0.5 ms up to 50 ms, with jitter ({@link Backoff}). */
    private void takeWithBackoff(String key, String owner, String alsoSet) throws SQLException {
        Backoff.untilTaken(() -> take(key, owner, alsoSet));
    }

    private void free(String key, String owner) throws SQLException {
        try (Connection connection = pool.getConnection();
             PreparedStatement free = connection.prepareStatement(
                     "UPDATE locked_lock SET owner = NULL, expires_at = NULL WHERE lock_key = ? AND owner = ?")) {
            free.setString(1, key);
            free.setString(2, owner);
            free.executeUpdate();
        }
    }

    private boolean take(String key, String owner, String alsoSet) throws SQLException {
        try (Connection connection = pool.getConnection();
             PreparedStatement take = connection.prepareStatement(
                     "UPDATE locked_lock SET owner = ?, expires_at = " + database.nowPlusLease + alsoSet
                             + " WHERE lock_key = ? AND (owner IS NULL OR expires_at <= " + database.now + ")")) {
            take.setString(1, owner);
            take.setString(2, key);
            return take.executeUpdate() == 1;
        }
    }
}
