package io.locked.jpa.internal.cleanup;

import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.transaction.LockTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The native path's cleanup of idle rows ({@link IdleRowBatches}). Each batch is one short
 * transaction of four statements ({@link io.locked.jpa.internal.dialect.IdleRowStatements}): it reads the next idle keys in key
 * order without locking, row-locks those still idle with {@code SKIP LOCKED}, deletes those still
 * idle, and commits. A row that a pessimistic holder has locked is skipped, never waited for; a
 * leased row is not idle while its lease is live. No statement waits for a row lock, on MySQL
 * included.
 */
public final class NativeIdleRows {
    private final LockConnections connections;
    private final Dialect database;

    public NativeIdleRows(LockConnections connections, Dialect database) {
        this.connections = connections;
        this.database = database;
    }

    /** @return the rows deleted: free rows not acquired, and with no live lease, for at least idleFor */
    public int delete(Duration idleFor) {
        long minusIdleMicros = -(idleFor.toNanos() / 1000);
        return IdleRowBatches.run(after -> batch(after, minusIdleMicros));
    }

    private IdleRowBatches.Batch batch(String after, long minusIdleMicros) {
        List<String> candidates = null;
        try (LockTransaction transaction = LockTransaction.begin(connections, database.startsTransactionsBySql(), CallBounds.maintenance())) {
            Connection connection = transaction.connection();
            candidates = idleKeys(connection, after, minusIdleMicros);
            List<String> locked = candidates.isEmpty() ? List.of() : lockIdle(connection, minusIdleMicros, candidates);
            int deleted = locked.isEmpty() ? 0 : delete(connection, minusIdleMicros, locked);
            transaction.commit();
            return new IdleRowBatches.Batch(candidates, deleted);
        } catch (SQLException failure) {
            if (candidates != null && LockConflicts.isBusy(failure)) {
                // a conflict at commit (a Galera node's certification): these rows wait for the next run
                return new IdleRowBatches.Batch(candidates, 0);
            }
            throw new LockStoreUnavailableException("(cleanup)", "deleting idle rows failed", failure);
        }
    }

    private List<String> idleKeys(Connection connection, String after, long minusIdleMicros) throws SQLException {
        try (PreparedStatement read = connection.prepareStatement(after == null ? database.idleRows.idleKeys()
                : database.idleRows.idleKeysAfter())) {
            bindIdle(read, minusIdleMicros);
            if (after != null) {
                read.setString(3, after);
            }
            return keys(read);
        }
    }

    private List<String> lockIdle(Connection connection, long minusIdleMicros, List<String> candidates)
            throws SQLException {
        try (PreparedStatement lock = batchStatement(connection, database.idleRows.lockIdle(), minusIdleMicros, candidates)) {
            return keys(lock);
        }
    }

    private int delete(Connection connection, long minusIdleMicros, List<String> keys) throws SQLException {
        try (PreparedStatement delete = batchStatement(connection, database.idleRows.deleteIdle(), minusIdleMicros, keys)) {
            return delete.executeUpdate();
        }
    }

    /** A statement on a batch's keys: the idle time, then the keys, the last repeated to fill the list. */
    private static PreparedStatement batchStatement(Connection connection, String sql, long minusIdleMicros,
                                                    List<String> keys) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        try {
            bindIdle(statement, minusIdleMicros);
            for (int i = 0; i < IdleRowBatches.SIZE; i++) {
                statement.setString(3 + i, keys.get(Math.min(i, keys.size() - 1)));
            }
            return statement;
        } catch (SQLException | RuntimeException failure) {
            statement.close();
            throw failure;
        }
    }

    private static void bindIdle(PreparedStatement statement, long minusIdleMicros) throws SQLException {
        statement.setLong(1, minusIdleMicros);
        statement.setLong(2, minusIdleMicros);
    }

    private static List<String> keys(PreparedStatement read) throws SQLException {
        List<String> keys = new ArrayList<>();
        try (ResultSet rows = read.executeQuery()) {
            while (rows.next()) {
                keys.add(rows.getString(1));
            }
        }
        return keys;
    }
}
