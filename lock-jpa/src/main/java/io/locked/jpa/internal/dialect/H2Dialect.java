package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockDatabase;
import io.locked.jpa.LockRow;
import io.locked.jpa.internal.transaction.FenceTransaction;
import io.locked.jpa.internal.transaction.LockTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * H2 2.3+. Its {@code CURRENT_TIMESTAMP} stands still for a transaction; the only clock H2 reads when
 * a value is computed is the one in a version 7 UUID: milliseconds in its top 48 bits, then the
 * version, then 12 bits of the millisecond's fraction. Its lock wait belongs to the session
 * ({@code LOCK_TIMEOUT}), so statements that may wait run within a {@link SessionLockTimeout}.
 */
final class H2Dialect extends Dialect {
    /** The clock of a version 7 UUID in microseconds, read when computed. */
    private static final String TOKEN_MICROS = "(SELECT RSHIFT(u, 16) * 1000 + BITAND(u, 4095) * 1000 / 4096"
            + " FROM (SELECT CAST(SUBSTRING(CAST(RANDOM_UUID(7) AS VARBINARY(16)) FROM 1 FOR 8) AS BIGINT) u))";
    private static final String INSERT_IF_ABSENT = "MERGE INTO " + LockRow.TABLE + " t USING (VALUES (CAST(? AS"
            + " VARCHAR(255)))) s(k) ON t.lock_key = s.k WHEN NOT MATCHED THEN INSERT (lock_key, version, token)"
            + " VALUES (s.k, 0, 0)";
    /** key, token, session: ABORT_SESSION is a function, so the committed row is read and the session ended in one statement. */
    private static final String END_UNREACHED_HOLD = "SELECT ABORT_SESSION(CAST(? AS INT)) FROM (VALUES 1)"
            + " WHERE NOT EXISTS (" + HoldChecks.REACHED.replace("COUNT(*)", "1") + ")";
    /**
     * One MERGE that raises the row only when its token is not higher, so its count says whether
     * the fence admitted the token; a refusal reads the higher token for the message.
     */
    private static final FenceStatements FENCE = new FenceStatements() {
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

        @Override
        public String toString() {
            return "H2";
        }
    };

    private final String take;
    private final String lockRow;
    private final String handOver;
    private final RenewalBatch renewalBatch;

    H2Dialect() {
        super(LockDatabase.H2, "schema-h2.sql", "CURRENT_TIMESTAMP(6)", TOKEN_MICROS,
                "DATEADD(MICROSECOND, " + TOKEN_MICROS + ", TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00')",
                (time, micros) -> "DATEADD(MICROSECOND, " + micros + ", " + time + ")", null);
        String table = LockRow.TABLE;
        // H2 computes an UPDATE's new values after it locked the row, column by column in the table's
        // order: the lease starts at the grant (acquired_at), and ends its length after a later reading
        this.take = "SELECT token, version, owner FROM FINAL TABLE (UPDATE " + table + " SET owner = ?, holder = ?,"
                + " version = version + 1, token = GREATEST(token + 1, " + tokenMicros + "), acquired_at = " + grantedAt
                + ", expires_at = " + plus(grantedAt, "?") + " WHERE lock_key = ? AND " + freeOrOwners() + ")";
        // H2 re-parses SELECT ... FOR UPDATE every time; an UPDATE read through FINAL TABLE is parsed
        // once, and row-locks like the UPDATE it is. It returns no row when the key has no row or a
        // live lease holds it.
        this.lockRow = "SELECT token, 1, " + tokenMicros + " AS " + TOKEN_CLOCK + " FROM FINAL TABLE (UPDATE " + table + " SET token = GREATEST(token + 1, "
                + tokenMicros + "), version = version + 1, acquired_at = " + grantedAt + ", holder = "
                + HolderSession.holderValue("SESSION_ID()") + " WHERE lock_key = ? AND " + freeOrExpired() + ")";
        this.handOver = "SELECT token FROM FINAL TABLE (" + handOverUpdate().formatted(nextToken()) + ")";
        // H2 judges an UPDATE's condition before it waits for the row lock, and again after it only if
        // the row changed meanwhile: a lease that ran out during the wait, while another transaction
        // held the row and rolled back, would pass. Its new values are computed after the wait, so the
        // lease is judged there, each row once, and the rows returned are those live as the statement
        // leaves them: a lease the renewal found run out keeps its end, and is not returned
        this.renewalBatch = new RenewalBatch("SELECT owner, version FROM FINAL TABLE (UPDATE " + table
                + " SET version = version + 1, expires_at = CASE WHEN expires_at > " + grantedAt
                + " THEN GREATEST(expires_at, " + nowPlus("?") + ") ELSE expires_at END"
                + RenewalBatch.batchHeld(now) + ") WHERE expires_at > " + grantedAt, null, false);
    }

    /** Within a {@link #boundLockWait}. */
    @Override
    public PreparedStatement takeLease(Connection connection, String owner, String holder, long leaseMicros, String key,
                                       long waitMillis) throws SQLException {
        PreparedStatement take = connection.prepareStatement(this.take);
        take.setString(1, owner);
        take.setString(2, holder);
        take.setLong(3, leaseMicros);
        take.setString(4, key);
        take.setString(5, owner); // its own lease, taken again
        return take;
    }

    /** No row comes back for a missing row and for a held lease alike. */
    @Override
    public boolean takeTellsMissingRow() {
        return false;
    }

    /** No row for a missing row or a held lease; run within a {@link #boundLockWait}. */
    @Override
    public String lockRow() {
        return lockRow;
    }

    @Override
    public String handOverLease() {
        return handOver;
    }

    /** Within a {@link #boundRowCreation}. */
    @Override
    public PreparedStatement insertIfAbsent(Connection connection, String key, long waitMillis) throws SQLException {
        PreparedStatement insert = connection.prepareStatement(INSERT_IF_ABSENT);
        insert.setString(1, key);
        return insert;
    }

    /**
     * Every H2 {@code SET} empties the query caches of all sessions, so the setting is lowered only
     * when it is longer than the wait; a shorter one ends the wait early as busy, and the caller asks
     * again. H2 reads 0 as "its default" (2 s): the shortest real bound is 1 ms.
     */
    @Override
    public SessionLockTimeout boundLockWait(Connection connection, long waitMillis) throws SQLException {
        return SessionLockTimeout.lowerTo(connection, "SELECT LOCK_TIMEOUT()", "SET LOCK_TIMEOUT ", Math.max(1, waitMillis));
    }

    @Override
    public String micros(String column) {
        return "DATEDIFF(MICROSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', " + column + ")";
    }

    /** The uncommitted read, then one statement that reads the committed row and ends the session in the same step. */
    @Override
    public boolean endHold(Connection connection, String key, long token, String holder, long session)
            throws SQLException {
        return written(connection, key, token, holder, session) && endUnreached(connection, key, token, session);
    }

    @Override
    public boolean readsUncommittedKeysFirst() {
        return true;
    }

    /** The uncommitted read is a statement of its own, and embedded H2 lends a session on without a round trip. */
    @Override
    public boolean readsAndEndsHoldsInOneStep() {
        return false;
    }

    private static boolean written(Connection connection, String key, long token, String holder, long session)
            throws SQLException {
        return LockTransaction.readAt(connection, Connection.TRANSACTION_READ_UNCOMMITTED, c -> {
            try (PreparedStatement read = c.prepareStatement(HoldChecks.WRITTEN)) {
                read.setString(1, key);
                read.setLong(2, token);
                read.setString(3, holder);
                read.setLong(4, session);
                try (ResultSet row = read.executeQuery()) {
                    return row.next() && row.getInt(1) == 1;
                }
            }
        });
    }

    private static boolean endUnreached(Connection connection, String key, long token, long session)
            throws SQLException {
        return LockTransaction.readAt(connection, Connection.TRANSACTION_READ_COMMITTED, c -> {
            try (PreparedStatement end = c.prepareStatement(END_UNREACHED_HOLD)) {
                end.setLong(1, session);
                end.setString(2, key);
                end.setLong(3, token);
                try (ResultSet ended = end.executeQuery()) {
                    // false: the session was gone already, and its hold with it
                    return ended.next();
                }
            }
        });
    }

    @Override
    public FenceStatements fence(boolean throughEntityManager) {
        return FENCE;
    }

    /** H2 reads its clock when it computes a version 7 UUID, whose top 48 bits are milliseconds since the epoch. */
    @Override
    public List<String> jpqlClocks() {
        return List.of("FUNCTION('RANDOM_UUID', 7)");
    }

    @Override
    public boolean rowLockWaitsInWholeSeconds() {
        return true; // Hibernate 7 renders the hint as FOR UPDATE WAIT n, in seconds
    }

    @Override
    protected boolean namedIn(String text) {
        return text.contains("jdbc:h2:") || text.contains("h2dialect") || text.equals("h2");
    }

    /** One statement for any number of leases, a lone one included: the rows it renewed, as it left them. */
    @Override
    public RenewalBatch renewalBatch() {
        return renewalBatch;
    }
}
