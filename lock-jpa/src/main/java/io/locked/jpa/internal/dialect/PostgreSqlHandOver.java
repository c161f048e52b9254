package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockRow;

/**
 * PostgreSQL's hand-over of a live lease to another acquisition of the same JVM ({@link
 * RowStatements#handOverLease}). A plain {@code UPDATE} computes its new values before it waits for
 * the row's lock and keeps them if the transaction it waited for rolls back: a pessimistic acquirer
 * that got the row after the lease ran out, drew its token from a later clock, used it and rolled back
 * would leave the successor a lower token, on a lease that had run out. So the row is locked first,
 * the clock read as it comes out of its lock, and the lease judged and the token drawn after that.
 */
final class PostgreSqlHandOver {
    private PostgreSqlHandOver() {
    }

    /**
     * @param lockWait    the settings sent first: the lock wait's parameter, and the standbys' wait where asked
     * @param tokenMicros the clock in microseconds, read where computed
     * @return parameters: the lock wait, new owner, holder, lease micros, key, owner, token; returns the new token
     */
    static String statement(String lockWait, String tokenMicros) {
        String table = LockRow.TABLE;
        return lockWait + "; WITH given AS (SELECT lock_key, CAST(? AS VARCHAR) AS new_owner,"
                + " CAST(? AS VARCHAR) AS new_holder, CAST(? AS BIGINT) AS micros, clock_timestamp() AS granted_at"
                + " FROM (SELECT lock_key FROM " + table + " WHERE lock_key = ? AND owner = ? AND token = ?"
                + " FOR NO KEY UPDATE) AS row_lock)"
                + " UPDATE " + table + " l SET owner = given.new_owner, holder = given.new_holder, version = l.version + 1,"
                + " token = GREATEST(l.token + 1, " + tokenMicros + "), acquired_at = given.granted_at,"
                + " expires_at = given.granted_at + given.micros * INTERVAL '1 microsecond'"
                + " FROM given WHERE l.lock_key = given.lock_key AND l.expires_at > given.granted_at RETURNING l.token";
    }
}
