package io.locked.jpa.internal.dialect;

import io.locked.jpa.internal.transaction.FenceTransaction;
import java.sql.SQLException;

/**
 * The fence of any database without a dialect, in standard SQL: raise the row if its token is not
 * higher; if no row was raised, insert it; an insert that meets a row (another first fence, or a
 * higher token) raises again, and what is left is a refusal. Needs a database where a failed
 * statement does not end the transaction (PostgreSQL has its own form).
 */
final class PortableFence extends FenceStatements {
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

    @Override
    public String toString() {
        return "PORTABLE";
    }
}
