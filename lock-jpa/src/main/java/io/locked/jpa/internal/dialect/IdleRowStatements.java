package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockRow;
import java.util.Collections;

/**
 * The statements with which a cleanup finds and deletes idle rows, in batches of {@link #BATCH}: free,
 * not acquired for the idle time, and holding a token the database clock has passed.
 *
 * @param idleKeys      minus the idle time in micros (twice): the first {@link #BATCH} keys of idle rows in
 *                      key order, read without locking anything
 * @param idleKeysAfter minus the idle time in micros (twice), key: as {@code idleKeys}, after that key
 * @param lockIdle      minus the idle time in micros (twice), then {@link #BATCH} keys (repeat the last to
 *                      fill the list): row-locks those still idle, skipping rows locked right now, and
 *                      returns their keys
 * @param deleteIdle    minus the idle time in micros (twice), then keys as for {@code lockIdle}: deletes
 *                      those still idle
 */
public record IdleRowStatements(String idleKeys, String idleKeysAfter, String lockIdle, String deleteIdle) {
    /** How many idle rows a cleanup batch reads and deletes at most (see {@code IdleRowBatches}). */
    public static final int BATCH = 500;

    /**
     * How a batch of idle rows is read by its primary key, where a locking read would otherwise scan and
     * lock more than the batch.
     *
     * @param hint   the index hint after the table's name
     * @param delete the DELETE up to its WHERE, with the hint
     */
    record ByIndex(String hint, String delete) {
    }

    /**
     * @param idleSince  the database's clock minus the idle time parameter, as an expression
     * @param nowMicros  the database's clock in microseconds since the epoch, as an expression
     * @param byIndex    the index hint and DELETE form of a database that needs them, or null
     */
    static IdleRowStatements on(String idleSince, String nowMicros, ByIndex byIndex) {
        String table = LockRow.TABLE;
        // rows created but never acquired have no acquired_at yet; and never a row whose token the clock
        // has not passed (it stepped back): the key's next row would draw its token from the clock, below it
        String idle = "(acquired_at IS NULL OR acquired_at < " + idleSince + ")"
                + " AND (owner IS NULL OR expires_at < " + idleSince + ") AND token < " + nowMicros;
        // a batch reads its keys without locking, then locks them by key: a locking range read would
        // also lock the busy rows it passes and (InnoDB under REPEATABLE READ) the gaps between them,
        // where new keys are inserted. SKIP LOCKED passes over a pessimistic holder's row without
        // waiting (MariaDB 10.6+, MySQL 8.0.1+, PostgreSQL, H2 2.x). One key list of a fixed length,
        // so that each statement is one text, prepared once where the driver caches statements
        String batchKeys = " AND lock_key IN (" + String.join(", ", Collections.nCopies(BATCH, "?")) + ")";
        String hint = byIndex == null ? "" : byIndex.hint();
        return new IdleRowStatements(
                "SELECT lock_key FROM " + table + " WHERE " + idle + " ORDER BY lock_key LIMIT " + BATCH,
                "SELECT lock_key FROM " + table + " WHERE " + idle + " AND lock_key > ? ORDER BY lock_key LIMIT " + BATCH,
                "SELECT lock_key FROM " + table + hint + " WHERE " + idle + batchKeys + " FOR UPDATE SKIP LOCKED",
                (byIndex == null ? "DELETE FROM " + table : byIndex.delete()) + " WHERE " + idle + batchKeys);
    }
}
