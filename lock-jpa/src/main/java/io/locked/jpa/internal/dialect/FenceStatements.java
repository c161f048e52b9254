package io.locked.jpa.internal.dialect;

import io.locked.jpa.internal.transaction.FenceTransaction;
import java.sql.SQLException;

/**
 * How each database raises a key's fence row to a token, inside the caller's transaction. Every
 * form writes (or row-locks) the key's row before it answers, so the row lock is held until the
 * caller's transaction ends: fenced transactions of one key run one after the other, and each
 * answer reflects every fenced transaction committed before it.
 */
public enum FenceStatements {
    /**
     * H2: one MERGE that raises the row only when its token is not higher, so its count says
     * whether the fence admitted the token; a refusal reads the higher token for the message.
     */
    H2 {
        private static final String RAISE = "MERGE INTO " + TABLE + " f"
                + " USING (VALUES (CAST(? AS VARCHAR(255)), CAST(? AS BIGINT))) s(k, t) ON f.lock_key = s.k"
                + " WHEN MATCHED AND f.token <= s.t THEN UPDATE SET token = s.t"
                + " WHEN NOT MATCHED THEN INSERT (lock_key, token) VALUES (s.k, s.t)";

        @Override
        public long raise(FenceTransaction transaction, String key, long token) throws SQLException {
            int raised;
            try {
                raised = transaction.update(RAISE, key, token);
            } catch (SQLException raceOrFailure) {
                // two first fences of a key: the one that lost the insert finds the row on a second try
                if (!isDuplicate(raceOrFailure)) {
                    throw raceOrFailure;
                }
                raised = transaction.update(RAISE, key, token);
            }
            return raised == 1 ? token : fenceToken(transaction, key);
        }
    },
    /** MariaDB: one upsert that keeps the higher token and returns the row as written. */
    MARIADB {
        private static final String RAISE = "INSERT INTO " + TABLE + " (lock_key, token) VALUES (?, ?)"
                + " ON DUPLICATE KEY UPDATE token = GREATEST(token, ?) RETURNING token";

        @Override
        public long raise(FenceTransaction transaction, String key, long token) throws SQLException {
            return requireRow(transaction.queryLong(RAISE, key, token, token), key);
        }
    },
    /**
     * MySQL, and MariaDB through an EntityManager: the upsert without {@code RETURNING} (MySQL has
     * none, and Connector/J refuses a native INSERT that returns rows when a provider runs it as a
     * query), then a locking read, which sees the newest row even in a REPEATABLE READ snapshot.
     */
    MYSQL {
        private static final String RAISE = "INSERT INTO " + TABLE + " (lock_key, token) VALUES (?, ?)"
                + " ON DUPLICATE KEY UPDATE token = GREATEST(token, ?)";
        private static final String READ = "SELECT token FROM " + TABLE + " WHERE lock_key = ? FOR UPDATE";

        @Override
        public long raise(FenceTransaction transaction, String key, long token) throws SQLException {
            transaction.update(RAISE, key, token, token);
            return requireRow(transaction.queryLong(READ, key), key);
        }
    },
    /** PostgreSQL: one upsert that keeps the higher token and returns the row as written. */
    POSTGRESQL {
        private static final String RAISE = "INSERT INTO " + TABLE + " AS f (lock_key, token) VALUES (?, ?)"
                + " ON CONFLICT (lock_key) DO UPDATE SET token = GREATEST(f.token, EXCLUDED.token) RETURNING f.token";

        @Override
        public long raise(FenceTransaction transaction, String key, long token) throws SQLException {
            return requireRow(transaction.queryLong(RAISE, key, token), key);
        }
    },
    /**
     * Any other database, in standard SQL: raise the row if its token is not higher; if no row was
     * raised, insert it; an insert that meets a row (another first fence, or a higher token)
     * raises again, and what is left is a refusal. Needs a database where a failed statement does
     * not end the transaction (PostgreSQL has its own form above).
     */
    PORTABLE {
        private static final String RAISE = "UPDATE " + TABLE + " SET token = ? WHERE lock_key = ? AND token <= ?";
        private static final String INSERT = "INSERT INTO " + TABLE + " (lock_key, token) VALUES (?, ?)";

        @Override
        public long raise(FenceTransaction transaction, String key, long token) throws SQLException {
            if (transaction.update(RAISE, token, key, token) == 1) {
                return token;
            }
            try {
                transaction.update(INSERT, key, token);
                return token;
            } catch (SQLException raceOrFailure) {
                if (!isDuplicate(raceOrFailure)) {
                    throw raceOrFailure;
                }
            }
            return transaction.update(RAISE, token, key, token) == 1 ? token : fenceToken(transaction, key);
        }
    };

    /** The fence table: a row per key that was written through the fence, holding the highest token that did. */
    public static final String TABLE = "locked_fence";
    private static final String READ_TOKEN = "SELECT token FROM " + TABLE + " WHERE lock_key = ?";
    /** Reads nothing, and fails where the fence table is missing: whether a forced release raises a fence. */
    public static final String PROBE = "SELECT COUNT(*) FROM " + TABLE + " WHERE 1 = 0";

    /**
     * Raises the key's fence row to the token unless a higher one is there, in the caller's
     * transaction, and keeps the row locked until that transaction ends.
     *
     * @return the key's fence token now: the given token if the fence admitted it, a higher one if not
     */
    public abstract long raise(FenceTransaction transaction, String key, long token) throws SQLException;

    private static long fenceToken(FenceTransaction transaction, String key) throws SQLException {
        return requireRow(transaction.queryLong(READ_TOKEN, key), key);
    }

    private static long requireRow(Long token, String key) throws SQLException {
        if (token == null) {
            // the library never deletes fence rows: someone removed it while this transaction fenced
            throw new SQLException("The fence row of '" + key + "' disappeared while fencing");
        }
        return token;
    }

    private static boolean isDuplicate(SQLException failure) {
        return failure.getSQLState() != null && failure.getSQLState().startsWith("23");
    }
}
