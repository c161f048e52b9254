package io.locked.jpa.internal.dialect;

import io.locked.jpa.internal.transaction.FenceTransaction;
import java.sql.SQLException;

/** PostgreSQL's fence: one upsert that keeps the higher token and returns the row as written. */
final class PostgreSqlFence extends FenceStatements {
    private static final String RAISE = "INSERT INTO " + TABLE + " AS f (lock_key, token) VALUES (?, ?)"
            + " ON CONFLICT (lock_key) DO UPDATE SET token = GREATEST(f.token, EXCLUDED.token) RETURNING f.token";

    @Override
    public long raise(FenceTransaction transaction, String key, long token) throws SQLException {
        return requireRow(transaction.queryLong(RAISE, key, token), key);
    }

    @Override
    public String toString() {
        return "POSTGRESQL";
    }
}
