package io.locked.jpa.internal.dialect;

import io.locked.jpa.internal.transaction.FenceTransaction;
import java.sql.SQLException;

/**
 * How a database raises a key's fence row to a token, inside the caller's transaction. Every form
 * writes (or row-locks) the key's row before it answers, so the row lock is held until the caller's
 * transaction ends: fenced transactions of one key run one after the other, and each answer
 * reflects every fenced transaction committed before it. Each dialect has its form
 * ({@link Dialect#fence}); any other database has {@link #PORTABLE}.
 */
public abstract class FenceStatements {
    /** The fence table: a row per key that was written through the fence, holding the highest token that did. */
    public static final String TABLE = "locked_fence";
    /** Reads nothing, and fails where the fence table is missing: whether a forced release raises a fence. */
    public static final String PROBE = "SELECT COUNT(*) FROM " + TABLE + " WHERE 1 = 0";
    /** Any database without a dialect, in standard SQL. */
    public static final FenceStatements PORTABLE = new PortableFence();
    private static final String READ_TOKEN = "SELECT token FROM " + TABLE + " WHERE lock_key = ?";

    /**
     * Raises the key's fence row to the token unless a higher one is there, in the caller's
     * transaction, and keeps the row locked until that transaction ends.
     *
     * @return the key's fence token now: the given token if the fence admitted it, a higher one if not
     */
    public abstract long raise(FenceTransaction transaction, String key, long token) throws SQLException;

    /** @return the key's fence token as it is now */
    static long fenceToken(FenceTransaction transaction, String key) throws SQLException {
        return requireRow(transaction.queryLong(READ_TOKEN, key), key);
    }

    static long requireRow(Long token, String key) throws SQLException {
        if (token == null) {
            // the library never deletes fence rows: someone removed it while this transaction fenced
            throw new SQLException("The fence row of '" + key + "' disappeared while fencing");
        }
        return token;
    }

    static boolean isDuplicate(SQLException failure) {
        return failure.getSQLState() != null && failure.getSQLState().startsWith("23");
    }
}
