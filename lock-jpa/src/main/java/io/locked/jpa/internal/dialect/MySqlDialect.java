package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockDatabase;
import io.locked.jpa.LockRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collections;
import java.util.concurrent.TimeUnit;

/**
 * MySQL 8.0+, through mysql-connector-j with its default properties. Tested on MySQL 8.0.15.
 *
 * <p>MySQL has no {@code RETURNING}, and no way to bound one statement's lock wait:
 * {@code innodb_lock_wait_timeout} is not among the variables a {@code SET_VAR} hint may set (the
 * hint is ignored with a warning), and its shortest wait is a second. So its statements never wait
 * for a row lock: each takes the key's row lock first with {@code FOR UPDATE NOWAIT}, in a subquery
 * that MySQL reads before the statement's own row access, and answers "busy" at once where another
 * transaction holds it; the lock manager tries again within the caller's wait. Waiters poll rather
 * than queue inside the database. The token comes back as the insert id
 * ({@code LAST_INSERT_ID(token)}), the row's existence as the count of rows found (Connector/J's
 * default). Since a take or a pessimistic acquisition never waits, a token drawn from its start in
 * UTC ({@code UTC_TIMESTAMP(6)}) comes after any holder it follows: that holder had the row lock and
 * let it go before the statement found it free. A hand-over, which may wait, waits only for an
 * acquirer that found the lease live and drew no token.
 *
 * <p>Its takes report no row version (0): the version is a diagnostic. Renewals, hand-overs and
 * releases write the holder's own row, which other statements lock only for a moment: hand-overs and
 * releases wait under the session's {@code innodb_lock_wait_timeout}, within their network timeout;
 * a lone renewal lowers it for its statements ({@link #boundRenewal}), so that none runs on after
 * its client gave up, and a batch of renewals never waits ({@link #freeRowsRenewal}). Creating a
 * missing row (once per key) is bounded through the session's setting ({@link SessionLockTimeout}).
 */
final class MySqlDialect extends MySqlFamilyDialect {
    /** A duplicate (another transaction created the key meanwhile) fails, and counts as created. */
    private static final String INSERT_IF_ABSENT = "INSERT INTO " + LockRow.TABLE + " (lock_key, version, token)"
            + " VALUES (?, 0, 0)";
    private static final InlinedStatement WRITTEN = new InlinedStatement(HoldChecks.WRITTEN);
    private static final InlinedStatement REACHED = new InlinedStatement(HoldChecks.REACHED);
    /** Converts a MySQL lock table whose key would not compare exactly; the schema script names it too. */
    private static final String TABLE_CONVERSION = "ALTER TABLE " + LockRow.TABLE + " MODIFY lock_key VARBINARY(1020)"
            + " NOT NULL, MODIFY holder VARCHAR(255) CHARACTER SET utf8mb4 NULL";
    private static final String FENCE_TABLE_CONVERSION = "ALTER TABLE locked_fence MODIFY lock_key VARBINARY(1020) NOT NULL";
    // exact on MySQL: bytes (VARBINARY, as the script makes it), or utf8mb4_0900_bin (8.0.17+, binary
    // and NO PAD); MySQL has no utf8mb4_nopad_bin, and its utf8mb4_bin pads trailing spaces
    private static final String MISFITS = "SELECT CONCAT(table_name, '.', column_name), COALESCE(character_set_name,"
            + " data_type), COALESCE(collation_name, '') FROM information_schema.columns WHERE table_schema = DATABASE()"
            + " AND ((table_name IN ('" + LockRow.TABLE + "', 'locked_fence') AND column_name = 'lock_key'"
            + " AND NOT (data_type = 'varbinary' OR collation_name = 'utf8mb4_0900_bin'))"
            + " OR (table_name = '" + LockRow.TABLE + "' AND column_name = 'holder' AND character_set_name <> 'utf8mb4'))";

    private final InlinedStatement take;
    private final InlinedStatement lockRow;
    private final String handOver;
    private final FreeRowsRenewal freeRowsRenewal;

    MySqlDialect() {
        // the statement's UTC start: no statement waits for the row lock. SYSDATE would be read after
        // it, but in the session's zone (SET_VAR cannot set time_zone on MySQL 8.0.15), and a zone with
        // daylight saving reads it an hour ahead after its autumn change, then steps back
        super(LockDatabase.MYSQL, "schema-mysql8.sql", "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))",
                GRANTED_AT);
        String free = freeOrExpired();
        // MySQL assigns left to right, each assignment seeing the ones before it: the owner is assigned
        // first, and every later column asks "is the owner now the caller's" (one more parameter each),
        // so the row is judged once
        String took = "owner = ?";
        this.take = new InlinedStatement("UPDATE " + LockRow.TABLE + " SET owner = IF(" + free + ", ?, owner),"
                + " holder = IF(" + took + ", ?, holder),"
                + " version = IF(" + took + ", version + 1, version),"
                + " token = IF(" + took + ", LAST_INSERT_ID(GREATEST(token + 1, " + tokenMicros + ")), token),"
                + " acquired_at = IF(" + took + ", " + grantedAt + ", acquired_at),"
                + " expires_at = IF(" + took + ", " + plus(grantedAt, "?") + ", expires_at)"
                + " WHERE lock_key = ? AND " + ROW_LOCKED_AT_ONCE);
        // the lease columns are only read here, never assigned
        this.lockRow = new InlinedStatement("UPDATE " + LockRow.TABLE + " SET token = IF(" + free
                + ", LAST_INSERT_ID(GREATEST(token + 1, " + tokenMicros + ")), token), version = IF(" + free
                + ", version + 1, version), acquired_at = IF(" + free + ", " + grantedAt + ", acquired_at),"
                + " holder = IF(" + free + ", " + HOLDER_VALUE + ", holder)"
                + " WHERE lock_key = ? AND " + ROW_LOCKED_AT_ONCE);
        // the giver's row: a pessimistic acquirer that finds the lease live holds it for a moment only
        this.handOver = handOverUpdate().formatted("LAST_INSERT_ID(" + nextToken() + ")");
        String table = LockRow.TABLE;
        this.freeRowsRenewal = new FreeRowsRenewal("UPDATE /*+ NO_MERGE(free) */ (SELECT l.lock_key AS k FROM " + FREE_ROWS
                + ") AS free STRAIGHT_JOIN " + table + " FORCE INDEX (PRIMARY) ON " + table + ".lock_key = free.k"
                + " SET " + table + ".version = " + table + ".version + 1, " + table + ".expires_at = GREATEST("
                + table + ".expires_at, " + nowPlus("?") + ") WHERE (" + table + ".lock_key, " + table + ".owner, "
                + table + ".token) IN (" + String.join(", ", Collections.nCopies(RenewalBatch.SIZE, "(?, ?, ?)"))
                + ") AND " + table + ".expires_at > " + GRANTED_AT,
                "SELECT batch.k, l.owner FROM " + FREE_ROWS);
    }

    /**
     * The statement's start in UTC plus the time since then, read after the row lock: MySQL's only clock
     * read when called, {@code SYSDATE}, is in the session's zone (which {@code SET_VAR} cannot set on
     * 8.0.15), and so is {@code NOW}, the start: their difference is the time elapsed, whatever the
     * zone. A statement that runs across a daylight-saving change would see it an hour off: going back,
     * it counts as no time (the start, as before), going forward it counts an hour more, which ends
     * leases early (safe) and starts minimum holds late (the key stays taken longer).
     */
    private static final String GRANTED_AT = "DATE_ADD(UTC_TIMESTAMP(6), INTERVAL GREATEST(0,"
            + " TIMESTAMPDIFF(MICROSECOND, NOW(6), SYSDATE(6))) MICROSECOND)";
    /** Keeps the session's lock wait in a user variable and sets the renewal's: one round trip, and one to put it back. */
    private static final String KEEP_AND_SET_LOCK_WAIT = "SET @locked_lock_wait = @@SESSION.innodb_lock_wait_timeout,"
            + " SESSION innodb_lock_wait_timeout = ";
    /**
     * Clears the user variable too: a pool that resets nothing would lend the session on with it set
     * (MySQL reads every value of a SET before it assigns any, so the order does not matter).
     */
    private static final String PUT_BACK_LOCK_WAIT = "SET SESSION innodb_lock_wait_timeout = @locked_lock_wait,"
            + " @locked_lock_wait = NULL";
    private static final Duration LOCK_WAIT_LATENESS = Duration.ofSeconds(2);

    // MySQL reads the NOWAIT subquery before the UPDATE touches the row, so the statement fails at
    // once on a row another transaction holds, and never waits: the UPDATE then finds the row locked
    // by itself. A derived table, because MySQL refuses a subquery on the table an UPDATE writes. The
    // EXISTS is uncorrelated over a one-row derived table, so MySQL evaluates it while it optimizes
    // the UPDATE, before the UPDATE reads the row; with an IN or a join instead, MySQL locks the row
    // in the UPDATE first, waiting for it. NO_SEMIJOIN keeps later MySQL versions (8.0.16+ turn
    // EXISTS into joins) from doing the same.
    private static final String ROW_LOCKED_AT_ONCE = "EXISTS (SELECT /*+ NO_SEMIJOIN() */ 1 FROM (SELECT 1 FROM "
            + LockRow.TABLE + " WHERE lock_key = ? FOR UPDATE NOWAIT) AS row_lock)";

    /** Never waits (see the class): run with {@code executeUpdate()}, the token read as the insert id. */
    @Override
    public String takeLeaseText(String owner, String holder, long leaseMicros, String key, long waitMillis,
                                boolean galera) {
        // each column after the owner asks "taken": is the owner now the caller's
        return take.with(owner, owner, holder, owner, owner, owner, owner, leaseMicros, key, key /* the row lock's */);
    }

    /**
     * Fails as busy (3572) at once where another transaction row-locks the key; a key whose lease is
     * live is row-locked all the same, and the caller rolls back.
     */
    @Override
    public String lockRowText(String holder, String key, long waitMillis, boolean galera) {
        return lockRow.with(holder, key, key /* the row lock's */);
    }

    /** {@code UTC_TIMESTAMP(6)} is the statement's start, read before its row lock. */
    @Override
    public boolean readsTokenClockAfterRowLock() {
        return false;
    }

    @Override
    public boolean answersByInsertId() {
        return true;
    }

    /** The network timeout bounds its wait, as nothing can bound one statement's lock wait here. */
    @Override
    public String handOverLease() {
        return handOver;
    }

    @Override
    public boolean handOverTokenAsInsertId() {
        return true;
    }

    /** Bounded by {@link #boundRowCreation}: of at least a second. */
    @Override
    public PreparedStatement insertIfAbsent(Connection connection, String key, long waitMillis) throws SQLException {
        PreparedStatement insert = connection.prepareStatement(INSERT_IF_ABSENT);
        insert.setString(1, key);
        return insert;
    }

    /**
     * MySQL's other statements never wait; this one, run once per key, is bounded through the
     * session's {@code innodb_lock_wait_timeout}, in whole seconds, at least one.
     */
    @Override
    public SessionLockTimeout boundRowCreation(Connection connection, long waitMillis) throws SQLException {
        return SessionLockTimeout.lowerTo(connection, "SELECT @@SESSION.innodb_lock_wait_timeout",
                "SET SESSION innodb_lock_wait_timeout = ", rowCreationSeconds(waitMillis));
    }

    /**
     * The session's lock wait of {@link #boundRowCreation}, which InnoDB ends up to
     * {@link #LOCK_WAIT_LATENESS} late: with a wait of zero, up to three seconds, past the call's
     * network timeout (seen in the randomized run: a reader slot's creation that waited for another
     * transaction's insert was ended by the client as a lost connection, where it should answer busy).
     */
    @Override
    public long rowCreationServerMillis(long waitMillis) {
        return TimeUnit.SECONDS.toMillis(rowCreationSeconds(waitMillis)) + LOCK_WAIT_LATENESS.toMillis();
    }

    private static long rowCreationSeconds(long waitMillis) {
        return Math.max(1, waitMillis / 1000);
    }

    /**
     * No {@code SET_VAR} hint can set {@code innodb_lock_wait_timeout} (8.0.15 ignores it) and
     * {@code max_execution_time} bounds reads only, so the renewal's lock wait is the session's, for
     * the renewal's statements, in whole seconds (at least one), put back after them: the renewal of a
     * lease alone, not a batch ({@link #freeRowsRenewal}).
     * InnoDB looks for waits that ran out once a second: one ends up to two seconds after its bound
     * ({@link #renewalBoundLateness}; measured on 8.0.15: 1.2 to 1.6 s).
     */
    @Override
    public Duration renewalBoundLateness() {
        return LOCK_WAIT_LATENESS;
    }

    /**
     * The rows of the batch's keys that no other session holds, each locked: the keys joined to their rows
     * one by one through the primary key (a list of keys, {@code IN}, on a small table is read by a scan of
     * the whole index, which would lock every row of the table).
     */
    private static final String FREE_ROWS = "(SELECT ? AS k"
            + String.join("", Collections.nCopies(RenewalBatch.SIZE - 1, " UNION ALL SELECT ?")) + ") AS batch"
            + " STRAIGHT_JOIN " + LockRow.TABLE + " AS l ON l.lock_key = batch.k FOR UPDATE OF l SKIP LOCKED";

    /**
     * A renewal waits under the session's lock wait, at least a second, and ends up to two after it
     * ({@link #renewalBoundLateness}): one row of the batch that another session holds (a lease released
     * while its renewal was on its way, which a pessimistic holder then took) would keep the batch past
     * a short lease, and lose every lease in it. The renewal reads the free rows first, as a derived table
     * kept apart ({@code NO_MERGE}: merged into the {@code UPDATE}, its {@code SKIP LOCKED} would be lost
     * and the statement would wait, past its client's timeout: it sets no lock wait of its own, since it
     * never waits; {@code RenewalBatchBesideAHeldRowTest} fails so), then joins each to its row, which it
     * already holds.
     */
    @Override
    public FreeRowsRenewal freeRowsRenewal() {
        return freeRowsRenewal;
    }

    @Override
    public SessionLockTimeout boundRenewal(Connection connection, long serverMillis) throws SQLException {
        return SessionLockTimeout.keptAndSet(connection, KEEP_AND_SET_LOCK_WAIT + Math.max(1, serverMillis / 1000),
                PUT_BACK_LOCK_WAIT);
    }

    /**
     * Neither compound statements outside stored programs nor a function that ends a session: both
     * reads, then {@code KILL}. A hold that ends in that one round trip, and a session that starts
     * other work before the {@code KILL} arrives, would lose that work.
     */
    @Override
    boolean endOpenHold(Connection connection, String key, long token, String holder, long session) throws SQLException {
        HoldChecks.execute(connection, HoldChecks.UNCOMMITTED);
        if (HoldChecks.count(connection, WRITTEN.with(key, token, holder, session)) != 1) {
            return false;
        }
        HoldChecks.execute(connection, HoldChecks.COMMITTED);
        if (HoldChecks.count(connection, REACHED.with(key, token)) != 0) {
            return false;
        }
        HoldChecks.execute(connection, "KILL CONNECTION " + session);
        return true;
    }

    @Override
    public boolean readsAndEndsHoldsInOneStep() {
        return false;
    }

    @Override
    public FenceStatements fence(boolean throughEntityManager) {
        return UPSERT_THEN_READ;
    }

    /** Never by name: a text of the MySQL family names MariaDB until the server's version tells. */
    @Override
    protected boolean namedIn(String text) {
        return false;
    }

    @Override
    public String keyColumnAdvice() {
        return "With this provider on MySQL 8.0.17 or later, make the key column text that compares exactly:"
                + " ALTER TABLE " + LockRow.TABLE + " MODIFY lock_key VARCHAR(255) CHARACTER SET utf8mb4"
                + " COLLATE utf8mb4_0900_bin NOT NULL; or use Hibernate ORM, which reads the script's VARBINARY key";
    }

    @Override
    String misfitColumns() {
        return MISFITS;
    }

    @Override
    String misfitAdvice(String misfits) {
        return "On MySQL the key must be VARBINARY (or utf8mb4_0900_bin on MySQL 8.0.17+; with utf8mb4_bin, 'k' and"
                + " 'k ' are one lock), the holder utf8mb4. Convert the table (this rebuilds it) with: " + TABLE_CONVERSION
                + (misfits.contains("locked_fence.") ? "; and the fence table with: " + FENCE_TABLE_CONVERSION : "");
    }
}
