package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockDatabase;
import io.locked.jpa.LockRow;
import io.locked.jpa.internal.transaction.FenceTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * MariaDB 10.6+ (Galera included, {@link GaleraNode}), through mysql-connector-j or the MariaDB
 * driver. Its statements use MariaDB syntax ({@code SET STATEMENT ... FOR}, {@code INSERT ...
 * RETURNING}), which bounds each statement's lock wait and zone. Tokens are drawn from
 * {@code SYSDATE(6)}, and a lease's start and a renewal's judgment are read from it ({@link #grantedAt}).
 * A server started with {@code --sysdate-is-now} reads it at the statement's start, before any row-lock
 * wait: the lock store finds that out at start-up ({@link #tokenClockAtStatementStart()}) and reads the
 * token clock again after the row lock ({@link #tokenAfterRowLock()}); a lease's start and a renewal's
 * judgment then fall back to the statement's start.
 */
final class MariaDbDialect extends MySqlFamilyDialect {
    /**
     * A Galera node retries an autocommit statement that lost certification, though it already sent
     * the client that statement's rows ({@link GaleraNode}); a lease's take must fail instead.
     */
    private static final String NO_AUTOCOMMIT_RETRY = ", wsrep_retry_autocommit = 0";
    /** The Galera node a pessimistic lock statement ran on, as a last column of its rows. */
    private static final String GALERA_NODE = ", CONCAT(@@hostname, ':', @@port)";
    private static final String INSERT_IF_ABSENT = "INSERT INTO " + LockRow.TABLE + " (lock_key, version, token)"
            + " VALUES (?, 0, 0) ON DUPLICATE KEY UPDATE lock_key = lock_key";
    /**
     * key, token, holder text, session, key, token, session: one anonymous compound statement reads
     * the row both ways ({@link HoldChecks}) and ends the session. SET TRANSACTION sets the level of
     * the next transaction only, which with autocommit is the next statement.
     */
    private static final InlinedStatement END_HOLD = new InlinedStatement("BEGIN NOT ATOMIC"
            + " DECLARE written, reached INT; " + HoldChecks.UNCOMMITTED + ";"
            + " SELECT COUNT(*) INTO written FROM " + LockRow.TABLE + " WHERE lock_key = ? AND token = ? AND holder = "
            + HoldChecks.HOLDER_COLUMN + "; "
            + HoldChecks.COMMITTED + "; SELECT COUNT(*) INTO reached FROM " + LockRow.TABLE + " WHERE lock_key = ? AND token >= ?;"
            + " IF written = 1 AND reached = 0 THEN KILL CONNECTION ?; END IF; SELECT written = 1 AND reached = 0; END");
    /** One upsert that keeps the higher token and returns the row as written. */
    private static final FenceStatements FENCE = new FenceStatements() {
        private static final String RAISE = "INSERT INTO " + TABLE + " (lock_key, token) VALUES (?, ?)"
                + " ON DUPLICATE KEY UPDATE token = GREATEST(token, ?) RETURNING token";

        @Override
        public long raise(FenceTransaction transaction, String key, long token) throws SQLException {
            return requireRow(transaction.queryLong(RAISE, key, token, token), key);
        }

        @Override
        public String toString() {
            return "MARIADB";
        }
    };
    /** Converts a MariaDB lock table created by an earlier script; the schema script names it too. */
    static final String TABLE_CONVERSION = "ALTER TABLE " + LockRow.TABLE
            + " MODIFY lock_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,"
            + " MODIFY owner VARCHAR(36) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL,"
            + " MODIFY holder VARCHAR(255) CHARACTER SET utf8mb4 NULL";
    private static final String FENCE_TABLE_CONVERSION = "ALTER TABLE locked_fence"
            + " MODIFY lock_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL";
    // exact means binary and NO PAD: utf8mb4_nopad_bin (a *_nopad_ci collation would still make
    // 'Order:1' and 'order:1' one lock); the owner column holds ASCII UUIDs and is not checked
    // (the fence table of LockFence keys its rows the same way)
    private static final String MISFITS = "SELECT CONCAT(table_name, '.', column_name), character_set_name,"
            + " collation_name FROM information_schema.columns WHERE table_schema = DATABASE()"
            + " AND ((table_name IN ('" + LockRow.TABLE + "', 'locked_fence') AND column_name = 'lock_key'"
            + " AND collation_name <> 'utf8mb4_nopad_bin')"
            + " OR (table_name = '" + LockRow.TABLE + "' AND column_name = 'holder' AND character_set_name <> 'utf8mb4'))";

    /**
     * With {@code --sysdate-is-now} SYSDATE is NOW, the statement's start. The sleep runs first, as
     * the derived table's rows are read before the outer row is computed: 10 ms between the two
     * readings unless both are the statement's start.
     */
    private static final String SYSDATE_AT_STATEMENT_START = "SELECT SYSDATE(6) = NOW(6)"
            + " FROM (SELECT SLEEP(0.01) AS slept) s WHERE slept = 0";
    /**
     * key: the locked row's token raised to the clock at this statement's start, which is after the
     * grant. An upsert, the one MariaDB 10.11 statement with RETURNING that updates a row, finds the
     * row the lock statement has locked (and created, if it was missing).
     */
    private static final String TOKEN_AFTER_ROW_LOCK = "INSERT INTO " + LockRow.TABLE + " (lock_key, version, token)"
            + " VALUES (?, 0, 0) ON DUPLICATE KEY UPDATE token = GREATEST(token, %1$s) RETURNING token, %1$s AS "
            + TOKEN_CLOCK;
    private final InlinedStatement take;
    private final InlinedStatement takeRow;
    private final InlinedStatement lockRow;
    private final String handOver;
    private final InlinedStatement handOverRow;
    private final String tokenAfterRowLock = TOKEN_AFTER_ROW_LOCK.formatted(micros("UTC_TIMESTAMP(6)"));

    MariaDbDialect() {
        // UTC_TIMESTAMP is the statement's start; SYSDATE is read when called, after the row-lock
        // wait, in the session's zone, which the statements set to UTC (SET STATEMENT time_zone)
        super(LockDatabase.MARIADB, "schema-mysql.sql", "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', SYSDATE(6))",
                "SYSDATE(6)");
        String free = freeOrExpired();
        // MariaDB reads the columns of ON DUPLICATE KEY UPDATE left to right, each assignment
        // seeing the ones before it, unless its SIMULTANEOUS_ASSIGNMENT mode makes every one see the row
        // as it was. The statement must mean the same either way: the owner is assigned first; every
        // later column asks "the owner is now the caller's, or the row was free" (true in both modes
        // exactly when the take succeeded), and expires_at, which that question reads, comes last.
        // The lease starts when the row lock was granted, on a clock read then (SYSDATE: a minimum hold
        // counts from the grant, not from before the wait), and ends its length after a second reading,
        // made after the first (MariaDB computes values and assignments left to right). VALUES(...) in
        // the update would be the values computed before the wait for the row.
        this.take = new InlinedStatement("INSERT INTO " + LockRow.TABLE
                + " (owner, holder, acquired_at, expires_at, lock_key, version, token)"
                + " VALUES (?, ?, " + grantedAt + ", " + plus(grantedAt, "?") + ", ?, 1, " + tokenMicros + ")"
                + " ON DUPLICATE KEY UPDATE " + takeAssignments(free, "VALUES(owner)", "VALUES(holder)", "%s")
                + " RETURNING token, version, owner");
        // the same assignments on a row that exists: no insert tried first, no row sent back. The token
        // comes in the OK packet (LAST_INSERT_ID is called only where the take succeeds, so none comes
        // where a live lease holds the key), the row's existence as the count of rows found
        this.takeRow = new InlinedStatement("UPDATE " + LockRow.TABLE + " SET "
                + takeAssignments(free, "?", "?", "LAST_INSERT_ID(%s)") + " WHERE lock_key = ?");
        // the lease columns are only read here, never assigned, so every IF sees the row as it was in
        // either assignment order
        this.lockRow = new InlinedStatement("INSERT INTO " + LockRow.TABLE + " (holder, lock_key, version, token, acquired_at)"
                + " VALUES (" + HOLDER_VALUE + ", ?, 1, " + tokenMicros + ", " + grantedAt + ")"
                + " ON DUPLICATE KEY UPDATE token = IF(" + free + ", GREATEST(token + 1, " + tokenMicros + "), token),"
                + " version = IF(" + free + ", version + 1, version),"
                + " acquired_at = IF(" + free + ", " + grantedAt + ", acquired_at),"
                + " holder = IF(" + free + ", VALUES(holder), holder)"
                + " RETURNING token, CASE WHEN " + free + " THEN 1 ELSE 0 END, " + tokenMicros + " AS " + TOKEN_CLOCK);
        // no UPDATE ... RETURNING before MariaDB 10.12: the token comes back in the OK packet. The
        // row is ours; a pessimistic acquirer may hold it for the moment it takes to find the lease
        // live, so a second is plenty of lock wait
        this.handOver = settings(1000) + " FOR " + handOverUpdate().formatted("LAST_INSERT_ID(" + nextToken() + ")");
        // a plain UPDATE where the clock is above the token (the token then is the clock, as the lock
        // statement would draw it): no insert tried first, no row sent back; the token comes in the OK
        // packet. The WHERE reads the clock before the SET does, so the token drawn is above the row's
        this.handOverRow = new InlinedStatement(settings(1000) + " FOR UPDATE " + LockRow.TABLE
                + " SET token = LAST_INSERT_ID(" + tokenMicros + "), version = version + 1, acquired_at = " + grantedAt
                + ", holder = " + HOLDER_VALUE + " WHERE lock_key = ? AND token < " + tokenMicros);
    }

    /**
     * A take's assignments, the owner first (see the constructor).
     *
     * @param owner the new owner: each later column asks whether the owner is now that one, or the row was free
     * @param token wraps the next token's expression
     */
    private String takeAssignments(String free, String owner, String holder, String token) {
        String took = "(owner = " + owner + " OR " + free + ")";
        return "owner = IF(" + free + ", " + owner + ", owner),"
                + " holder = IF(" + took + ", " + holder + ", holder),"
                + " version = IF(" + took + ", version + 1, version),"
                + " token = IF(" + took + ", " + token.formatted("GREATEST(token + 1, " + tokenMicros + ")") + ", token),"
                + " acquired_at = IF(" + took + ", " + grantedAt + ", acquired_at),"
                + " expires_at = IF(" + took + ", " + plus(grantedAt, "?") + ", expires_at)";
    }

    /**
     * MariaDB's settings for one statement: its lock wait (innodb_lock_wait_timeout counts whole
     * seconds, and 0 does not wait at all) and UTC for the SYSDATE its tokens are drawn from.
     */
    private static String settings(long waitMillis) {
        return "SET STATEMENT innodb_lock_wait_timeout = " + Math.max(0, waitMillis) / 1000 + ", time_zone = '+00:00'";
    }

    @Override
    public String takeLeaseText(String owner, String holder, long leaseMicros, String key, long waitMillis,
                                boolean galera) {
        return settings(waitMillis) + (galera ? NO_AUTOCOMMIT_RETRY : "") + " FOR "
                + take.with(owner, holder, leaseMicros, key, leaseMicros);
    }

    @Override
    public String takeRowText(String owner, String holder, long leaseMicros, String key, long waitMillis) {
        // the owner, then "is the owner now the caller's" in each later column
        return settings(waitMillis) + " FOR " + takeRow.with(owner, owner, holder, owner, owner, owner, owner,
                leaseMicros, key);
    }

    @Override
    public String lockRowText(String holder, String key, long waitMillis, boolean galera) {
        return settings(waitMillis) + " FOR " + lockRow.with(holder, key) + (galera ? GALERA_NODE : "");
    }

    @Override
    public UnaryOperator<String> transactionStartWith() {
        return statement -> "BEGIN NOT ATOMIC START TRANSACTION; " + statement + "; END";
    }

    @Override
    public String handOverRowText(String holder, String key) {
        return handOverRow.with(holder, key);
    }

    @Override
    public String handOverLease() {
        return handOver;
    }

    @Override
    public String tokenClockAtStatementStart() {
        return SYSDATE_AT_STATEMENT_START;
    }

    @Override
    public String tokenAfterRowLock() {
        return tokenAfterRowLock;
    }

    @Override
    public boolean handOverTokenAsInsertId() {
        return true;
    }

    @Override
    public PreparedStatement insertIfAbsent(Connection connection, String key, long waitMillis) throws SQLException {
        PreparedStatement insert = connection.prepareStatement(settings(waitMillis) + " FOR " + INSERT_IF_ABSENT);
        insert.setString(1, key);
        return insert;
    }

    /**
     * {@code max_statement_time} bounds the whole statement, each of its row-lock waits included (a
     * batch may meet several rows locked elsewhere), and ends it with its changes undone; the zone is
     * UTC for the {@code SYSDATE} it judges by.
     */
    @Override
    public String withRenewalBound(String statement, long serverMillis) {
        long millis = Math.max(1, serverMillis);
        return "SET STATEMENT max_statement_time = " + millis / 1000 + "." + String.format(Locale.ROOT, "%03d", millis % 1000)
                + ", time_zone = '+00:00' FOR " + statement;
    }

    @Override
    public String withRowLockWait(String statement, int seconds) {
        return "SET STATEMENT innodb_lock_wait_timeout = " + seconds + " FOR " + statement;
    }

    @Override
    public String drawingTokenInUtc(String statement) {
        // its token clock is SYSDATE, read in the session's zone
        return "SET STATEMENT time_zone = '+00:00' FOR " + statement;
    }

    @Override
    boolean endOpenHold(Connection connection, String key, long token, String holder, long session) throws SQLException {
        return HoldChecks.count(connection, END_HOLD.with(key, token, holder, session, key, token, session)) == 1;
    }

    @Override
    public FenceStatements fence(boolean throughEntityManager) {
        return throughEntityManager ? UPSERT_THEN_READ : FENCE;
    }

    @Override
    public boolean mayBeGaleraNode() {
        return true;
    }

    /**
     * Connector/J speaks to MySQL and MariaDB alike, its URL says {@code jdbc:mysql:} for both, and
     * users set MySQLDialect on MariaDB too: a text of the family names MariaDB here, until the
     * server's version says which of the two it is ({@link #byServerVersion}).
     */
    @Override
    protected boolean namedIn(String text) {
        return text.contains("jdbc:mysql:") || text.contains("jdbc:mariadb:")
                || text.contains("mysqldialect") || text.contains("mariadbdialect")
                || text.equals("mysql") || text.equals("mariadb");
    }

    @Override
    public boolean needsServerVersion() {
        return true;
    }

    /**
     * MariaDB's version always names MariaDB ("5.5.5-10.11.19-MariaDB-0+deb12u1" through Connector/J,
     * "11.4.2-MariaDB"), MySQL's never does ("8.0.15").
     */
    @Override
    public Dialect byServerVersion(String serverVersion) {
        return String.valueOf(serverVersion).toLowerCase(Locale.ROOT).contains("mariadb") ? this
                : Dialects.of(LockDatabase.MYSQL);
    }

    @Override
    String misfitColumns() {
        return MISFITS;
    }

    @Override
    String misfitAdvice(String misfits) {
        return "The key must be utf8mb4_nopad_bin (with utf8mb4_bin, 'k' and 'k ' are one lock), the holder utf8mb4."
                + " Convert the table (this rebuilds it) with: " + TABLE_CONVERSION
                + (misfits.contains("locked_fence.") ? "; and the fence table with: " + FENCE_TABLE_CONVERSION : "");
    }
}
