package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockDatabase;
import io.locked.jpa.LockRow;
import io.locked.jpa.StandbyCommits;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.LockConnections;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * PostgreSQL 12+. Its clock for leases and tokens is {@code clock_timestamp()}, the time it is read
 * (not the transaction's start), which moves within a statement: each statement judges a row once.
 * A statement's lock wait is bounded by {@code lock_timeout}, set for its transaction in the same
 * round trip ({@link #settingsFirst()}). That setting bounds every lock wait of the statement, the
 * server's own brief ones too (a table's extension by a concurrent insert, a vacuum's truncation):
 * so a wait of zero does not queue for the row at all ({@code SKIP LOCKED}, {@code NOWAIT}) and
 * gives those the statement allowance, rather than answer "busy" for a key nobody holds. It reads no uncommitted row, so a pessimistic holder
 * publishes token and holder as its session's {@code application_name} until its transaction ends
 * ({@link HolderSession}), and another session finds it through the row's {@code xmax}.
 */
final class PostgreSqlDialect extends Dialect {
    /** The bound on a statement's lock wait, sent first in the same round trip; it ends with the transaction. */
    private static final String LOCK_WAIT = "SELECT set_config('lock_timeout', ?, true)";
    /** The server's bound on the brief lock waits of a statement whose caller does not wait: {@link #lockWait}. */
    private static final long ZERO_WAIT_SERVER_BOUND_MILLIS = CallBounds.STATEMENT_ALLOWANCE.toMillis() / 2;
    /** The commit's wait for the standbys that the user asked of the lock's durable writes. */
    private static final String STANDBY_WAIT = "set_config('synchronous_commit', '%s', true)";
    /**
     * lock wait: the settings of the lock transaction, which end with it. The wait, and
     * {@code synchronous_commit = off}: the transaction only writes the holder's token, and a token
     * lost in a server crash is harmless because the next one is drawn from the database clock,
     * which has moved on by then. A minimum hold left at release is not: {@link #DISK_WAIT_AGAIN}.
     * Where the user asked the lock's commits to wait for the standbys, the token's does too (a
     * failover may reach a server whose clock is behind): {@link #STANDBY_WAIT} instead.
     */
    private static final String LOCK_SETTINGS = "SELECT set_config('lock_timeout', ?, true), %s";
    private static final String NO_WAIT = "set_config('synchronous_commit', 'off', true)";
    /**
     * The setting sent first in a plain release's round trip: its commit returns without waiting for
     * the write-ahead log to reach the disk (the WAL writer writes it out within three times
     * {@code wal_writer_delay}, 200 ms by default, and any commit that waits writes it out first). A
     * release lost in a server crash gives the key back to its owner until its lease runs out, a
     * delay, never a second holder: a take that saw the row free commits after the release, and its
     * wait for the disk covers every commit before it. Takes, renewals, hand-overs and a release with
     * a minimum hold keep waiting: {@link RowStatements#releaseSettings()} says why each must.
     */
    private static final String NO_WAIT_FOR_DISK = "SELECT " + NO_WAIT;
    /**
     * Sent first with the statement that leaves a minimum hold in a pessimistic holder's row: its commit
     * waits for the disk again (the session's default). Lost in a crash, the hold would be gone: the key
     * free before the hold's end, so that a job meant to run at most once per period could run twice.
     */
    private static final String DISK_WAIT_AGAIN = "SET LOCAL synchronous_commit TO DEFAULT";
    private static final String INSERT_IF_ABSENT = "INSERT INTO " + LockRow.TABLE + " (lock_key, version, token)"
            + " VALUES (?, 0, 0) ON CONFLICT (lock_key) DO NOTHING";
    /** key, session: ends the session only while its transaction is the one that row-locks the key. */
    private static final FenceStatements FENCE = new PostgreSqlFence();

    /** The level of {@code synchronous_commit} the user asked for the lock's durable writes, or null. */
    private final String standbyWait;
    /** {@link #LOCK_WAIT}, with {@link #STANDBY_WAIT} where asked: sent first with takes and hand-overs. */
    private final String lockWait;
    private final String take;
    /** The take for a wait of zero: a row that another transaction locks is skipped, not waited for. */
    private final String takeNow;
    private final String lockRow;
    /** The acquisition for a wait of zero: the row is locked first, with NOWAIT, then as in {@link #lockRow}. */
    private final String lockRowNow;
    private final String handOver;

    PostgreSqlDialect() {
        this(null);
    }

    /** @param standbyWait the {@code synchronous_commit} of the lock's durable writes, or null for the session's */
    private PostgreSqlDialect(String standbyWait) {
        super(LockDatabase.POSTGRESQL, "schema-postgresql.sql", "clock_timestamp()",
                "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)", "clock_timestamp()",
                (time, micros) -> "(" + time + " + CAST(" + micros + " AS BIGINT) * INTERVAL '1 microsecond')", null);
        this.standbyWait = standbyWait;
        this.lockWait = standbyWait == null ? LOCK_WAIT : LOCK_WAIT + ", " + STANDBY_WAIT.formatted(standbyWait);
        String lockSettings = LOCK_SETTINGS.formatted(standbyWait == null ? NO_WAIT : STANDBY_WAIT.formatted(standbyWait));
        String table = LockRow.TABLE;
        // An UPDATE computes its new values before it waits for a row lock, and keeps them if the
        // transaction it waited for rolls back: its token would come from a clock read before that
        // holder's. So the row is locked first, in its own step, and the update joins the locked row,
        // computing its values after the wait. A held lease is filtered out before any lock, so that a
        // failed attempt locks and writes nothing; the last branch answers in the same round trip
        // whether the row exists (it sees the row as it was).
        String takeFrom = " taken AS (UPDATE " + table + " l SET owner = ?, holder = ?, version = l.version + 1,"
                + " token = GREATEST(l.token + 1, " + tokenMicros + "), acquired_at = " + now
                + ", expires_at = " + nowPlus("?") + " FROM free WHERE l.lock_key = free.lock_key"
                + " RETURNING l.token, l.version, l.owner)"
                + " SELECT token, version, owner FROM taken"
                + " UNION ALL SELECT 0, 0, NULL FROM " + table + " WHERE lock_key = ? AND NOT EXISTS (SELECT 1 FROM taken)";
        // free, or its own owner's: a take sent again after its reply was lost takes its own lease again
        String free = lockWait + "; WITH free AS (SELECT lock_key FROM " + table + " WHERE lock_key = ? AND "
                + freeOrOwners() + " FOR NO KEY UPDATE";
        this.take = free + ")," + takeFrom;
        this.takeNow = free + " SKIP LOCKED)," + takeFrom;
        // The holder's row change is not visible to other sessions until it commits, so the statement
        // also publishes token and holder as its session's application_name until then (HolderSession),
        // and says whether it created the row (a new row's xmax is 0; a row updated on conflict has the
        // updater's): the caller commits a row it created and locks it again, so that others see it.
        // clock_timestamp() moves within a statement, so the row is judged once, in RETURNING (which
        // sees the owner and expiry as they were: the statement does not write them). Judging in each
        // SET and again there could answer "free" over a token left unchanged, when a lease ran out in
        // between. So the SET writes the next token whether or not the key is free: a busy answer rolls
        // the lock transaction back, and the write with it.
        this.lockRow = lockSettings + "; INSERT INTO " + table + " AS l (holder, lock_key, version, token, acquired_at)"
                + " VALUES (?, ?, 1, " + tokenMicros + ", " + now + ")"
                + " ON CONFLICT (lock_key) DO UPDATE SET token = GREATEST(l.token + 1, " + tokenMicros + "),"
                + " version = l.version + 1, acquired_at = " + now + ", holder = EXCLUDED.holder"
                + " RETURNING l.token, CASE WHEN l.owner IS NULL OR l.expires_at <= " + now + " THEN 1 ELSE 0 END,"
                + " l.xmax = 0, " + HolderSession.publishedAfterLock("l.token", "l.holder") + ", " + tokenMicros
                + " AS " + TOKEN_CLOCK;
        // NOWAIT fails at once where another transaction row-locks the key (55P03, busy); the statement
        // after it then finds the row locked by its own transaction, or creates a missing one
        this.lockRowNow = lockSettings + "; SELECT 1 FROM " + table + " WHERE lock_key = ? FOR NO KEY UPDATE NOWAIT"
                + lockRow.substring(lockSettings.length());
        this.handOver = PostgreSqlHandOver.statement(lockWait, tokenMicros);
    }

    /**
     * PostgreSQL's lock_timeout for a wait (0 would mean "forever"). A wait of zero does not queue for the row
     * (its statements skip a locked row or say NOWAIT): its setting bounds the server's own brief lock waits,
     * and the wait an insert of a missing key makes for another transaction's uncommitted insert of it, which
     * NOWAIT does not cover. That bound is half the statement allowance: the client gives up on the statement
     * after the allowance ({@link CallBounds#forWait}), and the server must answer "busy" first (seen in the
     * randomized run: a reader slot's insert waited the whole allowance for another reader's, and the client's
     * network timeout ended it as a lost connection).
     */
    static String lockWait(long waitMillis) {
        return (waitMillis == 0 ? ZERO_WAIT_SERVER_BOUND_MILLIS : waitMillis) + "ms";
    }

    @Override
    public PreparedStatement takeLease(Connection connection, String owner, String holder, long leaseMicros, String key,
                                       long waitMillis) throws SQLException {
        PreparedStatement take = connection.prepareStatement(waitMillis == 0 ? takeNow : this.take);
        take.setString(1, lockWait(waitMillis));
        take.setString(2, key); // the row to lock
        take.setString(3, owner); // its own lease, taken again
        take.setString(4, owner);
        take.setString(5, holder);
        take.setLong(6, leaseMicros);
        take.setString(7, key); // the existence branch's
        return take;
    }

    @Override
    public String lockRow() {
        return lockRow;
    }

    @Override
    public PreparedStatement lockRow(Connection connection, String holder, String key, long waitMillis)
            throws SQLException {
        if (waitMillis > 0) {
            return super.lockRow(connection, holder, key, waitMillis);
        }
        PreparedStatement lock = connection.prepareStatement(lockRowNow);
        lock.setString(1, lockWait(0));
        lock.setString(2, key); // the row lock's
        lock.setString(3, holder);
        lock.setString(4, key);
        return lock;
    }

    @Override
    public int resultsBeforeLockRows(long waitMillis) {
        return waitMillis > 0 ? 1 : 2; // the settings, then the row lock's for a wait of zero
    }

    /** The driver sends the settings, the release and one sync: one transaction, to which the setting is local. */
    @Override
    public String releaseSettings() {
        return NO_WAIT_FOR_DISK;
    }

    @Override
    public String holdRowSettings() {
        return standbyWait == null ? DISK_WAIT_AGAIN : "SET LOCAL synchronous_commit TO " + standbyWait;
    }

    @Override
    public String durableWriteSettings() {
        return standbyWait == null ? null : "SELECT " + STANDBY_WAIT.formatted(standbyWait);
    }

    /** The statements of this database with the commits of durable writes at that level. */
    @Override
    public Dialect withStandbyWait(StandbyCommits synchronousCommit) {
        return new PostgreSqlDialect(synchronousCommit.level());
    }

    @Override
    public String renewalSettings(long serverMillis) {
        return PostgreSqlRenewals.settings(serverMillis, standbyWait == null ? null : STANDBY_WAIT.formatted(standbyWait));
    }

    /** A second bounds its wait where a pessimistic acquirer holds the row. */
    @Override
    public String handOverLease() {
        return handOver;
    }

    @Override
    public boolean createsRowUnseen() {
        return true;
    }

    @Override
    public boolean settingsFirst() {
        return true;
    }

    @Override
    public String lockWaitParameter(long waitMillis) {
        return lockWait(waitMillis);
    }

    @Override
    public PreparedStatement insertIfAbsent(Connection connection, String key, long waitMillis) throws SQLException {
        PreparedStatement insert = connection.prepareStatement(LOCK_WAIT + "; " + INSERT_IF_ABSENT); // lost: made again
        // it waits only for another creator of the key, which commits at once here, and for the
        // server's own brief waits: at least what a wait of zero allows them, whatever the caller's wait
        insert.setString(1, lockWait(Math.max(waitMillis, ZERO_WAIT_SERVER_BOUND_MILLIS)));
        insert.setString(2, key);
        return insert;
    }

    @Override
    public String micros(String column) {
        return "CAST(EXTRACT(EPOCH FROM " + column + ") * 1000000 AS BIGINT)";
    }

    /** The row's {@code xmax} names the transaction that row-locks it, {@code pg_stat_activity} its session. */
    @Override
    public String selectRows(String columns) {
        return "SELECT " + columns + ", a.pid, a.application_name, " + micros("a.xact_start") + " FROM "
                + LockRow.TABLE + " l LEFT JOIN pg_stat_activity a ON a.backend_xid = l.xmax WHERE ";
    }

    @Override
    public boolean showsHolderSessions() {
        return true;
    }

    @Override
    public boolean servesPrefixesFromIndex() {
        return false; // only under the C collation, which few databases use (not even C.UTF-8 before 17)
    }

    /**
     * One statement joins the row's {@code xmax} to the session's transaction; the signal it sends is
     * acted on an instant later.
     */
    @Override
    public boolean endHold(Connection connection, String key, long token, String holder, long session)
            throws SQLException {
        return PostgreSqlHolderEnd.end(connection, key, token, session);
    }

    @Override
    public FenceStatements fence(boolean throughEntityManager) {
        return FENCE;
    }

    /** The time the function is called, not the transaction's start. */
    @Override
    public List<String> jpqlClocks() {
        return List.of("FUNCTION('clock_timestamp')");
    }

    @Override
    protected boolean namedIn(String text) {
        return text.contains("jdbc:postgresql:") || text.contains("postgresqldialect") || text.contains("postgresplus")
                || text.equals("postgresql");
    }

    /** Refuses a standby ({@link PostgreSqlTopology}) and a pooler that mixes prepared statements ({@link TransactionPooling}). */
    @Override
    public void checkLockTable(LockConnections connections) {
        PostgreSqlTopology.check(connections, standbyWait);
        TransactionPooling.check(connections);
    }

    @Override
    public RenewalBatch renewalBatch() {
        return PostgreSqlRenewals.BATCH;
    }
}
