package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockRow;

/**
 * PostgreSQL's renewals ({@link RenewalStatements}): one statement of one text for any batch, a lone
 * lease included, bounded by a {@code statement_timeout} set for its transaction alone; a batch of more
 * than one lease is first sent in a text that skips the rows other sessions hold.
 */
final class PostgreSqlRenewals {
    static final RenewalBatch BATCH = batch();

    private PostgreSqlRenewals() {
    }

    /**
     * The leases as arrays, joined to their rows by the primary key; the rows renewed are returned. An
     * {@code UPDATE} judges a row before it waits for the row's lock, and does not judge it again when
     * the transaction it waited for rolls back: a lease that ran out meanwhile, held by another
     * acquirer that rolled back, would pass. So the rows are locked first, in key order, and the clock is
     * read for each as it comes out of its lock (the projection above the locking subquery, which is
     * not pulled up); the {@code UPDATE} judges the row on that reading in its join, which cannot be
     * evaluated before the locked row is there.
     *
     * @return parameters: lease micros, then keys, owners and tokens as arrays
     */
    private static RenewalBatch batch() {
        String table = LockRow.TABLE;
        return new RenewalBatch("WITH locked AS (SELECT lock_key, clock_timestamp() AS granted_at,"
                + " CAST(? AS BIGINT) AS micros FROM (SELECT l.lock_key FROM " + table + " l JOIN unnest(CAST(? AS VARCHAR[]),"
                + " CAST(? AS VARCHAR[]), CAST(? AS BIGINT[])) AS b(lock_key, owner, token) ON l.lock_key = b.lock_key"
                + " AND l.owner = b.owner AND l.token = b.token ORDER BY l.lock_key FOR NO KEY UPDATE OF l) AS row_locks)"
                + " UPDATE " + table + " l SET version = l.version + 1, expires_at = GREATEST(l.expires_at,"
                + " locked.granted_at + locked.micros * INTERVAL '1 microsecond')"
                + " FROM locked WHERE l.lock_key = locked.lock_key AND l.expires_at > locked.granted_at"
                + " RETURNING l.owner, l.version", null, true, skippingHeldRows());
    }

    /**
     * The batch's renewal that never waits: the rows still under a lease of the batch (key, owner and token)
     * that no other session holds are locked ({@code SKIP LOCKED}; as in {@link #batch()}, no other row is,
     * so an acquirer of a key whose lease ended never finds its row held by this renewal), the clock read
     * for each as it comes out of its lock, and the leases there renewed where still live on that reading.
     * One row comes back per row locked: its key, and the owner and new version where the lease was renewed
     * (nulls where it had run out: lost). A lease whose key does not come back is judged by {@link #batch()}
     * after it: its row was held elsewhere (it waits for it), or holds another lease, or none (lost at once).
     *
     * @return parameters as {@link #batch()}'s: lease micros, then keys, owners and tokens as arrays
     */
    private static String skippingHeldRows() {
        String table = LockRow.TABLE;
        return "WITH p AS (SELECT CAST(? AS BIGINT) AS micros), b AS (SELECT * FROM unnest(CAST(? AS VARCHAR[]),"
                + " CAST(? AS VARCHAR[]), CAST(? AS BIGINT[])) AS b(lock_key, owner, token)),"
                + " free AS (SELECT lock_key, clock_timestamp() AS granted_at FROM (SELECT l.lock_key FROM " + table + " l"
                + " JOIN b ON l.lock_key = b.lock_key AND l.owner = b.owner AND l.token = b.token ORDER BY l.lock_key"
                + " FOR NO KEY UPDATE OF l SKIP LOCKED) AS row_locks), renewed AS (UPDATE " + table + " l"
                + " SET version = l.version + 1, expires_at = GREATEST(l.expires_at, free.granted_at + p.micros"
                + " * INTERVAL '1 microsecond') FROM free, b, p WHERE l.lock_key = free.lock_key AND b.lock_key = free.lock_key"
                + " AND l.owner = b.owner AND l.token = b.token AND l.expires_at > free.granted_at"
                + " RETURNING l.lock_key, l.owner, l.version)"
                + " SELECT free.lock_key, renewed.owner, renewed.version FROM free LEFT JOIN renewed"
                + " ON renewed.lock_key = free.lock_key";
    }

    /**
     * {@code statement_timeout} for the renewal's transaction: it bounds the whole statement, each of
     * its lock waits included, and ends with the transaction.
     *
     * @param standbyWait the setting of the commit's wait for the standbys, or null
     */
    static String settings(long serverMillis, String standbyWait) {
        return "SELECT set_config('statement_timeout', '" + Math.max(1, serverMillis) + "ms', true)"
                + (standbyWait == null ? "" : ", " + standbyWait);
    }
}
