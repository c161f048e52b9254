package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockDatabase;
import io.locked.jpa.LockRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collections;
import java.util.function.UnaryOperator;

/**
 * The database families Locked has statements for. {@code JpaLockRepository} detects the family
 * from the persistence unit; pass one explicitly when detection cannot tell.
 *
 * <p>Every time is the database's: leases start and end on its clock, and tokens are drawn as
 * {@code GREATEST(token + 1, now in microseconds)} so that they keep increasing after a row is
 * deleted and created again, and after a pessimistic holder's transaction was rolled back (both
 * rely on the database clock not stepping back). That "now" is read when the token is written,
 * after any wait for the row lock: a holder granted while a statement waited, and rolled back
 * after it used its token, drew that token from a later clock than the statement's start. (A
 * statement that creates a missing row reads the clock for it before it can wait; it waits only
 * for another transaction creating the same key at that moment.)
 *
 * <p>Each statement judges "free or held" once: where the clock moves within a statement
 * (PostgreSQL's {@code clock_timestamp()}), two readings could disagree. Statements take
 * positional parameters, in the order their documentation gives.
 *
 * <p>Statements per operation (round trips), on every database: an optimistic take, renewal,
 * hand-over or release is one autocommit statement (a release of a lease that had expired: two);
 * a pessimistic acquisition is one statement in the lock's own transaction, which MariaDB and
 * MySQL start with {@code START TRANSACTION} and end with {@code COMMIT} (so a pessimistic cycle is
 * three round trips, an optimistic one two). Creating a missing row adds statements on H2, MySQL and
 * PostgreSQL (which commits a row its lock statement created, so that other sessions see the hold),
 * once per key.
 */
public enum Dialect {
    /**
     * MariaDB 10.6+, through mysql-connector-j or the MariaDB driver. Its statements use MariaDB
     * syntax ({@code SET STATEMENT ... FOR}, {@code INSERT ... RETURNING}); MySQL has {@link #MYSQL}.
     * Tokens are drawn from {@code SYSDATE(6)}: a server started with {@code --sysdate-is-now} would
     * read it at the statement's start again.
     */
    MARIADB("UTC_TIMESTAMP(6)",
            // UTC_TIMESTAMP is the statement's start; SYSDATE is read when called, after the row-lock
            // wait, in the session's zone, which the statements set to UTC (SET STATEMENT time_zone)
            "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', SYSDATE(6))",
            micros -> "DATE_ADD(UTC_TIMESTAMP(6), INTERVAL " + micros + " MICROSECOND)",
            "INSERT INTO " + LockRow.TABLE + " (lock_key, version, token) VALUES (?, 0, 0)"
                    + " ON DUPLICATE KEY UPDATE lock_key = lock_key",
            "schema-mysql.sql"),
    /**
     * MySQL 8.0+, through mysql-connector-j with its default properties. MySQL has no
     * {@code RETURNING}, and no way to bound one statement's lock wait: {@code innodb_lock_wait_timeout}
     * is not among the variables a {@code SET_VAR} hint may set (the hint is ignored with a warning),
     * and its shortest wait is a second. So its statements never wait for a row lock: each takes the
     * key's row lock first with {@code FOR UPDATE NOWAIT}, in a subquery that MySQL reads before the
     * statement's own row access, and answers "busy" at once where another transaction holds it; the
     * lock manager tries again within the caller's wait. Waiters poll rather than queue inside the
     * database. The token comes back as the insert id ({@code LAST_INSERT_ID(token)}), the row's
     * existence as the count of rows found (Connector/J's default). Since a take or a pessimistic
     * acquisition never waits, a token drawn from its start in UTC ({@code UTC_TIMESTAMP(6)}) comes
     * after any holder it follows: that holder had the row lock and let it go before the statement
     * found it free. A hand-over, which may wait, waits only for an acquirer that found the lease
     * live and drew no token.
     * Its takes report no row version (0): the version is a diagnostic. Renewals, hand-overs and
     * releases write the holder's own row, which other statements lock only for a moment: they wait
     * under the session's {@code innodb_lock_wait_timeout}, within their network timeout. Creating a
     * missing row (once per key) is bounded through the session's setting ({@link SessionLockTimeout}).
     * Tested on MySQL 8.0.15.
     */
    MYSQL("UTC_TIMESTAMP(6)",
            // the statement's UTC start: no statement waits for the row lock. SYSDATE would be read after
            // it, but in the session's zone (SET_VAR cannot set time_zone on MySQL 8.0.15), and a zone with
            // daylight saving reads it an hour ahead after its autumn change, then steps back
            "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))",
            micros -> "DATE_ADD(UTC_TIMESTAMP(6), INTERVAL " + micros + " MICROSECOND)",
            // a duplicate (another transaction created the key meanwhile) fails, and counts as created
            "INSERT INTO " + LockRow.TABLE + " (lock_key, version, token) VALUES (?, 0, 0)",
            "schema-mysql8.sql"),
    /** PostgreSQL 12+. */
    POSTGRESQL("clock_timestamp()",
            "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)",
            micros -> "(clock_timestamp() + CAST(" + micros + " AS BIGINT) * INTERVAL '1 microsecond')",
            "INSERT INTO " + LockRow.TABLE + " (lock_key, version, token) VALUES (?, 0, 0)"
                    + " ON CONFLICT (lock_key) DO NOTHING",
            "schema-postgresql.sql"),
    /** H2 2.3+. Its clock reads the same value throughout a transaction. */
    H2("CURRENT_TIMESTAMP(6)",
            // CURRENT_TIMESTAMP stands still for a transaction; the only clock H2 reads when a value is
            // computed is the one in a version 7 UUID: milliseconds in its top 48 bits, then the version,
            // then 12 bits of the millisecond's fraction
            "(SELECT RSHIFT(u, 16) * 1000 + BITAND(u, 4095) * 1000 / 4096"
                    + " FROM (SELECT CAST(SUBSTRING(CAST(RANDOM_UUID(7) AS VARBINARY(16)) FROM 1 FOR 8) AS BIGINT) u))",
            micros -> "DATEADD(MICROSECOND, " + micros + ", CURRENT_TIMESTAMP(6))",
            "MERGE INTO " + LockRow.TABLE + " t USING (VALUES (CAST(? AS VARCHAR(255)))) s(k) ON t.lock_key = s.k"
                    + " WHEN NOT MATCHED THEN INSERT (lock_key, version, token) VALUES (s.k, 0, 0)",
            "schema-h2.sql");

    /** @return the dialect of a database family, null for null (a database without native statements) */
    public static Dialect of(LockDatabase family) {
        return family == null ? null : valueOf(family.name());
    }

    /** @return the public name of this dialect's database family */
    public LockDatabase family() {
        return LockDatabase.valueOf(name());
    }

    /** How many idle rows a cleanup batch reads and deletes at most (see {@code IdleRowBatches}). */
    public static final int IDLE_BATCH = 500;

    /**
     * A Galera node retries an autocommit statement that lost certification, though it already sent
     * the client that statement's rows ({@link GaleraNode}); a lease's take must fail instead.
     */
    private static final String NO_AUTOCOMMIT_RETRY = ", wsrep_retry_autocommit = 0";
    /** The Galera node a pessimistic lock statement ran on, as a last column of its rows. */
    private static final String GALERA_NODE = ", CONCAT(@@hostname, ':', @@port)";
    private static final String FREE_OR_EXPIRED = "(owner IS NULL OR expires_at <= %s)";
    /** PostgreSQL's bound on a statement's lock wait, sent first in the same round trip; it ends with the transaction. */
    private static final String POSTGRESQL_LOCK_WAIT = "SELECT set_config('lock_timeout', ?, true)";
    /**
     * lock wait: the settings of PostgreSQL's lock transaction, which end with it. The wait, and
     * {@code synchronous_commit = off}: the transaction only writes the holder's token, and a token
     * lost in a server crash is harmless because the next one is drawn from the database clock,
     * which has moved on by then.
     */
    private static final String POSTGRESQL_SETTINGS =
            "SELECT set_config('lock_timeout', ?, true), set_config('synchronous_commit', 'off', true)";

    /** key. */
    private final String insertIfAbsent;
    public final String schemaResource;
    /** The database's clock, for judging leases. */
    public final String now;
    /** The clock in microseconds, read when the expression is computed: see {@link Dialect}. */
    public final String tokenMicros;
    /**
     * owner, holder, lease micros, key (PostgreSQL: lock wait, key, owner, holder, lease micros,
     * key): one compare-and-set that succeeds only on a free or expired row, returning token, version and owner: the lease was
     * taken if the owner is the caller's. Where {@link #takeTellsMissingRow} says so, no row comes
     * back only when the key has no row (MariaDB creates it instead: an upsert); on H2 no row
     * comes back for a missing row and for a held lease alike. MySQL answers by counts and the
     * insert id instead, with parameters of its own ({@link #answersByInsertId()}).
     */
    private final String takeLease;
    /** MariaDB and MySQL: {@link #takeLease} to be sent with its values written in; null elsewhere. */
    private final InlinedStatement inlinedTake;
    public final boolean takeTellsMissingRow;
    /**
     * The pessimistic acquisition in one statement, see {@link #lockRow()}.
     */
    private final String lockRow;
    /** MariaDB and MySQL: {@link #lockRow} to be sent with its values written in; null elsewhere. */
    private final InlinedStatement inlinedLockRow;
    /**
     * lease micros, key, owner, token. Guarded by owner and token, not version: a renewal whose reply
     * was lost must not make the next one fail.
     */
    public final String renewLease;
    /** key, owner, token. */
    public final String releaseLease;
    /**
     * (PostgreSQL: the lock wait first, see {@link #settingsFirst()}) new owner, holder, lease micros,
     * key, owner, token: the lease passed to another owner with a new token, if still live; returns
     * the new token (MariaDB and MySQL: as the last insert id). The row is the giver's, so its lock
     * wait is short; a second bounds it where a pessimistic acquirer holds the row (MySQL: the
     * network timeout, as nothing can bound one statement's lock wait there).
     */
    public final String handOverLease;
    /** key, owner. */
    public final String ownersToken;
    /** key, owner. */
    public final String freeOwnExpiredLease;
    /** key. */
    public final String rowExists;
    /**
     * minus the idle time in micros (twice): the first {@link #IDLE_BATCH} keys of idle rows
     * in key order, read without locking anything.
     */
    public final String idleKeys;
    /** minus the idle time in micros (twice), key: as {@link #idleKeys}, after that key. */
    public final String idleKeysAfter;
    /**
     * minus the idle time in micros (twice), then {@link #IDLE_BATCH} keys (repeat the last to
     * fill the list): row-locks those still idle, skipping rows locked right now, and returns their keys.
     */
    public final String lockIdle;
    /** minus the idle time in micros (twice), then keys as for {@link #lockIdle}: deletes those still idle. */
    public final String deleteIdle;

    /**
     * @param now           the database's clock, for judging leases
     * @param tokenMicros   the clock in microseconds as read when the expression is computed, which
     *                      for a token is after the row lock was granted
     * @param nowPlusMicros now plus a number of microseconds
     */
    Dialect(String now, String tokenMicros, UnaryOperator<String> nowPlusMicros, String insertIfAbsent,
                 String schemaFile) {
        String table = LockRow.TABLE;
        this.insertIfAbsent = insertIfAbsent;
        this.schemaResource = "META-INF/locked/" + schemaFile;
        this.now = now;
        this.tokenMicros = tokenMicros;
        // by the constant's name below: a switch on the constant itself is not possible while the enum is built
        String free = FREE_OR_EXPIRED.formatted(now);
        this.takeLease = switch (name()) {
            case "MARIADB" -> upsertTake(table, now, tokenMicros, nowPlusMicros.apply("?"), free);
            case "MYSQL" -> mySqlTake(table, now, tokenMicros, nowPlusMicros.apply("?"), free);
            case "POSTGRESQL" -> POSTGRESQL_LOCK_WAIT + "; " + postgresTake(table, now, tokenMicros, nowPlusMicros.apply("?"));
            // H2 computes an UPDATE's new values after it locked the row
            default -> "SELECT token, version, owner FROM FINAL TABLE (UPDATE " + table + " SET owner = ?, holder = ?,"
                    + " version = version + 1, token = GREATEST(token + 1, " + tokenMicros + "), acquired_at = " + now
                    + ", expires_at = " + nowPlusMicros.apply("?") + " WHERE lock_key = ? AND " + free + ")";
        };
        this.takeTellsMissingRow = !name().equals("H2");
        boolean mySqlFamily = name().equals("MARIADB") || name().equals("MYSQL");
        this.inlinedTake = mySqlFamily ? new InlinedStatement(takeLease) : null;
        this.lockRow = switch (name()) {
            case "MARIADB" -> upsertLockRow(table, now, tokenMicros, free);
            case "MYSQL" -> mySqlLockRow(table, now, tokenMicros, free);
            case "POSTGRESQL" -> POSTGRESQL_SETTINGS + "; " + postgresLockRow(table, now, tokenMicros);
            // H2 re-parses SELECT ... FOR UPDATE every time; an UPDATE read through FINAL TABLE is
            // parsed once, and row-locks like the UPDATE it is. It returns no row when the key has
            // no row or a live lease holds it.
            default -> "SELECT token, 1 FROM FINAL TABLE (UPDATE " + table + " SET token = GREATEST(token + 1, "
                    + tokenMicros + "), version = version + 1, acquired_at = " + now + ", holder = "
                    + HolderSession.H2.holderValue() + " WHERE lock_key = ? AND "
                    + free + ")";
        };
        this.inlinedLockRow = mySqlFamily ? new InlinedStatement(lockRow) : null;
        this.renewLease = "UPDATE " + table + " SET version = version + 1, expires_at = " + nowPlusMicros.apply("?")
                + " WHERE lock_key = ? AND owner = ? AND token = ? AND expires_at > " + now;
        String handOver = "UPDATE " + table + " SET owner = ?, holder = ?, version = version + 1, token = %s,"
                + " acquired_at = " + now + ", expires_at = " + nowPlusMicros.apply("?")
                + " WHERE lock_key = ? AND owner = ? AND token = ? AND expires_at > " + now;
        String nextToken = "GREATEST(token + 1, " + tokenMicros + ")";
        this.handOverLease = switch (name()) {
            // no UPDATE ... RETURNING before MariaDB 10.12: the token comes back in the OK packet. The
            // row is ours; a pessimistic acquirer may hold it for the moment it takes to find the lease
            // live, so a second is plenty of lock wait
            case "MARIADB" -> mariaDbSettings(1000) + " FOR " + handOver.formatted("LAST_INSERT_ID(" + nextToken + ")");
            // the giver's row: a pessimistic acquirer that finds the lease live holds it for a moment only
            case "MYSQL" -> handOver.formatted("LAST_INSERT_ID(" + nextToken + ")");
            case "POSTGRESQL" -> POSTGRESQL_LOCK_WAIT + "; " + handOver.formatted(nextToken) + " RETURNING token";
            default -> "SELECT token FROM FINAL TABLE (" + handOver.formatted(nextToken) + ")";
        };
        this.ownersToken = "SELECT token FROM " + table + " WHERE lock_key = ? AND owner = ?";
        this.releaseLease = "UPDATE " + table + " SET owner = NULL, expires_at = NULL, version = version + 1"
                + " WHERE lock_key = ? AND owner = ? AND token = ? AND expires_at > " + now;
        this.freeOwnExpiredLease = "UPDATE " + table + " SET owner = NULL, expires_at = NULL, version = version + 1"
                + " WHERE lock_key = ? AND owner = ?";
        this.rowExists = "SELECT 1 FROM " + table + " WHERE lock_key = ?";
        // rows created but never acquired have no acquired_at yet
        String idleSince = nowPlusMicros.apply("?");
        String idle = "(acquired_at IS NULL OR acquired_at < " + idleSince + ")"
                + " AND (owner IS NULL OR expires_at < " + idleSince + ")";
        // a batch reads its keys without locking, then locks them by key: a locking range read would
        // also lock the busy rows it passes and (InnoDB under REPEATABLE READ) the gaps between them,
        // where new keys are inserted. SKIP LOCKED passes over a pessimistic holder's row without
        // waiting (MariaDB 10.6+, MySQL 8.0.1+, PostgreSQL, H2 2.x). One key list of a fixed length,
        // so that each statement is one text, prepared once where the driver caches statements
        this.idleKeys = "SELECT lock_key FROM " + table + " WHERE " + idle + " ORDER BY lock_key LIMIT "
                + IDLE_BATCH;
        this.idleKeysAfter = "SELECT lock_key FROM " + table + " WHERE " + idle + " AND lock_key > ?"
                + " ORDER BY lock_key LIMIT " + IDLE_BATCH;
        String batchKeys = " AND lock_key IN (" + String.join(", ", Collections.nCopies(IDLE_BATCH, "?")) + ")";
        // InnoDB locks every row a locking statement reads, before it judges the row: on a small table
        // the optimizer would scan it all for 500 keys, and wait for a holder's row, or keep a busy
        // row locked until the batch commits. The primary key reads exactly the batch's rows
        String byKey = mySqlFamily ? " FORCE INDEX (PRIMARY)" : "";
        this.lockIdle = "SELECT lock_key FROM " + table + byKey + " WHERE " + idle + batchKeys + " FOR UPDATE SKIP LOCKED";
        // (the multiple-table form: MySQL's single-table DELETE takes no index hint)
        this.deleteIdle = (mySqlFamily ? "DELETE l FROM " + table + " AS l" + byKey : "DELETE FROM " + table)
                + " WHERE " + idle + batchKeys;
    }

    /**
     * Whether the lock statements (a pessimistic acquisition, a lease's take) are sent as text with
     * their values written in ({@link InlinedStatement}, MariaDB and MySQL) rather than prepared:
     * {@link #lockRowText}, {@link #takeLeaseText}.
     */
    public boolean inlinesLockStatements() {
        return inlinedLockRow != null;
    }

    /**
     * The take of {@link #takeLease}, its parameters bound (PostgreSQL and H2; MariaDB and MySQL:
     * {@link #takeLeaseText}), queueing at most waitMillis for a row lock (a pessimistic holder's; H2:
     * within a {@link SessionLockTimeout}): past it the statement fails as busy. Where
     * {@link #settingsFirst()} says so, its first result is the settings'.
     */
    public PreparedStatement takeLease(Connection connection, String owner, String holder, long leaseMicros, String key,
                                long waitMillis) throws SQLException {
        if (inlinesLockStatements()) {
            throw new IllegalStateException(this + " sends its take as text: takeLeaseText");
        }
        PreparedStatement take = connection.prepareStatement(takeLease);
        int parameter = 1;
        if (this == POSTGRESQL) {
            take.setString(parameter++, lockWait(waitMillis));
            take.setString(parameter++, key); // the row to lock
        }
        take.setString(parameter++, owner);
        take.setString(parameter++, holder);
        take.setLong(parameter++, leaseMicros);
        take.setString(parameter, key); // PostgreSQL: the existence branch's
        return take;
    }

    /**
     * The take of {@link #takeLease} as text with its values written in (MariaDB and MySQL, see
     * {@link InlinedStatement}), queueing at most waitMillis for a pessimistic holder's row lock
     * (MariaDB; MySQL never waits, see {@link #MYSQL}): past it the statement fails as busy. MariaDB's
     * is run with {@code execute()} and answers by rows, as {@link #takeLease}; MySQL's is run with
     * {@code executeUpdate()} and generated keys: 0 rows found means the key has no row; a generated
     * key is the token of the lease taken; none, a live lease holds the key. On a Galera node
     * ({@link GaleraNode}) the node must not run the statement again after it sent its rows.
     */
    public String takeLeaseText(String owner, String holder, long leaseMicros, String key, long waitMillis, boolean galera) {
        return switch (this) {
            case MARIADB -> mariaDbSettings(waitMillis) + (galera ? NO_AUTOCOMMIT_RETRY : "") + " FOR "
                    + inlinedTake.with(owner, holder, leaseMicros, key);
            // each column after the owner asks "taken": is the owner now the caller's (see mySqlTake)
            case MYSQL -> inlinedTake.with(owner, owner, holder, owner, owner, owner, owner, leaseMicros, key,
                    key /* the row lock's */);
            case POSTGRESQL, H2 -> throw new IllegalStateException(this + " prepares its take: takeLease");
        };
    }

    /**
     * The pessimistic acquisition in one statement, queueing at most the caller's wait for the row
     * lock: it row-locks the key and writes the next token, which counts only if no live lease holds the
     * key (PostgreSQL writes it either way; a busy answer is rolled back by the caller).
     * Parameters: the lock wait as text where {@link #settingsFirst()} says so, then holder, key.
     * Returns the token and 1 if the key was free (0: a live lease holds it); PostgreSQL then whether it
     * created the row (see {@link #createsRowUnseen()}). MariaDB and PostgreSQL create a
     * missing row in the same statement; H2 returns no row for a missing row or a held lease, and
     * runs it within a {@link SessionLockTimeout}. On a Galera node a third column names the node
     * ({@code host:port}) that holds the row lock. Prepared on PostgreSQL and H2; MariaDB and MySQL
     * send it as text, see {@link #lockRowText}.
     */
    public String lockRow() {
        if (inlinesLockStatements()) {
            throw new IllegalStateException(this + " sends its lock statement as text: lockRowText");
        }
        return lockRow;
    }

    /**
     * {@link #lockRow()} as text with holder and key written in (MariaDB and MySQL, see
     * {@link InlinedStatement}). MariaDB's is run with {@code execute()} and answers by rows, as
     * lockRow's; MySQL's is run with {@code executeUpdate()} and generated keys: 0 rows found means the
     * key has no row; a generated key is the token drawn; none, a live lease holds the key (the row is
     * locked all the same: the caller rolls back). MySQL's fails as busy (3572) at once where another
     * transaction row-locks the key.
     */
    public String lockRowText(String holder, String key, long waitMillis, boolean galera) {
        return switch (this) {
            case MARIADB -> mariaDbSettings(waitMillis) + " FOR " + inlinedLockRow.with(holder, key)
                    + (galera ? GALERA_NODE : "");
            case MYSQL -> inlinedLockRow.with(holder, key, key /* the row lock's */);
            case POSTGRESQL, H2 -> throw new IllegalStateException(this + " prepares its lock statement: lockRow");
        };
    }

    /**
     * Whether a pessimistic lock statement that created the key's row leaves it invisible to other
     * sessions until it commits (PostgreSQL, which reads nothing uncommitted): the row is committed
     * and locked again, once per key, so that inspection from another session sees the hold.
     */
    public boolean createsRowUnseen() {
        return this == POSTGRESQL;
    }

    /** Whether {@link #handOverLease} gives its token as the last insert id rather than as a row. */
    public boolean handOverTokenAsInsertId() {
        return this == MARIADB || this == MYSQL;
    }

    /**
     * Whether a take and a pessimistic acquisition answer by counts and the insert id rather than by
     * rows (MySQL): see {@link #takeLeaseText} and {@link #lockRowText}.
     */
    public boolean answersByInsertId() {
        return this == MYSQL;
    }

    /**
     * Creates the key's row if missing, waiting at most waitMillis for another transaction creating
     * it (H2 and MySQL: within a {@link SessionLockTimeout}, on MySQL of at least a second). Run with {@code execute()}: where
     * {@link #settingsFirst()} says so, its first result is the settings'.
     */
    public PreparedStatement insertIfAbsent(Connection connection, String key, long waitMillis) throws SQLException {
        PreparedStatement insert = connection.prepareStatement(switch (this) {
            case MARIADB -> mariaDbSettings(waitMillis) + " FOR " + insertIfAbsent;
            case POSTGRESQL -> POSTGRESQL_LOCK_WAIT + "; " + insertIfAbsent;
            case MYSQL, H2 -> insertIfAbsent;
        });
        int parameter = 1;
        if (this == POSTGRESQL) {
            insert.setString(parameter++, lockWait(waitMillis));
        }
        insert.setString(parameter, key);
        return insert;
    }

    /**
     * PostgreSQL bounds a statement's lock wait by settings sent in the same round trip, as a first
     * statement: the statement's first result is theirs, and its first parameter the lock wait
     * ({@link #lockWait}).
     */
    public boolean settingsFirst() {
        return this == POSTGRESQL;
    }

    /**
     * MariaDB's settings for one statement: its lock wait (innodb_lock_wait_timeout counts whole
     * seconds, and 0 does not wait at all) and UTC for the SYSDATE its tokens are drawn from.
     */
    private static String mariaDbSettings(long waitMillis) {
        return "SET STATEMENT innodb_lock_wait_timeout = " + Math.max(0, waitMillis) / 1000 + ", time_zone = '+00:00'";
    }

    /** PostgreSQL's lock_timeout for a wait: 0 would mean "forever", so the shortest wait is 1 ms. */
    public static String lockWait(long waitMillis) {
        return Math.max(1, waitMillis) + "ms";
    }

    // MariaDB reads the columns of ON DUPLICATE KEY UPDATE left to right, each assignment
    // seeing the ones before it, unless its SIMULTANEOUS_ASSIGNMENT mode makes every one see the row
    // as it was. The statement must mean the same either way: the owner is assigned first; every
    // later column asks "the owner is now the caller's, or the row was free" (true in both modes
    // exactly when the take succeeded), and expires_at, which that question reads, comes last.
    private static String upsertTake(String table, String now, String tokenMicros, String nowPlusLease, String free) {
        String took = "(owner = VALUES(owner) OR " + free + ")";
        return "INSERT INTO " + table + " (owner, holder, expires_at, lock_key, version, token, acquired_at)"
                + " VALUES (?, ?, " + nowPlusLease + ", ?, 1, " + tokenMicros + ", " + now + ")"
                + " ON DUPLICATE KEY UPDATE owner = IF(" + free + ", VALUES(owner), owner),"
                + " holder = IF(" + took + ", VALUES(holder), holder),"
                + " version = IF(" + took + ", version + 1, version),"
                + " token = IF(" + took + ", GREATEST(token + 1, " + tokenMicros + "), token),"
                + " acquired_at = IF(" + took + ", " + now + ", acquired_at),"
                + " expires_at = IF(" + took + ", VALUES(expires_at), expires_at)"
                + " RETURNING token, version, owner";
    }

    // The lease columns are only read here, never assigned, so every IF sees the row as it was in
    // either assignment order (see upsertTake).
    private static String upsertLockRow(String table, String now, String tokenMicros, String free) {
        return "INSERT INTO " + table + " (holder, lock_key, version, token, acquired_at)"
                + " VALUES (" + HolderSession.MYSQL_FAMILY.holderValue() + ", ?, 1, " + tokenMicros + ", " + now + ")"
                + " ON DUPLICATE KEY UPDATE token = IF(" + free + ", GREATEST(token + 1, " + tokenMicros + "), token),"
                + " version = IF(" + free + ", version + 1, version),"
                + " acquired_at = IF(" + free + ", " + now + ", acquired_at),"
                + " holder = IF(" + free + ", VALUES(holder), holder)"
                + " RETURNING token, CASE WHEN " + free + " THEN 1 ELSE 0 END";
    }

    // MySQL reads the NOWAIT subquery before the UPDATE touches the row (it is uncorrelated and
    // materialized first), so the statement fails at once on a row another transaction holds, and
    // never waits: the UPDATE then finds the row locked by itself. MySQL assigns left to right, each
    // assignment seeing the ones before it: the owner is assigned first, and every later column asks
    // "is the owner now the caller's" (one more parameter each), so the row is judged once.
    private static String mySqlTake(String table, String now, String tokenMicros, String nowPlusLease, String free) {
        String took = "owner = ?";
        return "UPDATE " + table + " SET owner = IF(" + free + ", ?, owner),"
                + " holder = IF(" + took + ", ?, holder),"
                + " version = IF(" + took + ", version + 1, version),"
                + " token = IF(" + took + ", LAST_INSERT_ID(GREATEST(token + 1, " + tokenMicros + ")), token),"
                + " acquired_at = IF(" + took + ", " + now + ", acquired_at),"
                + " expires_at = IF(" + took + ", " + nowPlusLease + ", expires_at)"
                + " WHERE lock_key = ? AND " + mySqlRowLockedAtOnce(table);
    }

    // The lease columns are only read here, never assigned (see mySqlTake for the row lock).
    private static String mySqlLockRow(String table, String now, String tokenMicros, String free) {
        return "UPDATE " + table + " SET token = IF(" + free + ", LAST_INSERT_ID(GREATEST(token + 1, " + tokenMicros
                + ")), token), version = IF(" + free + ", version + 1, version),"
                + " acquired_at = IF(" + free + ", " + now + ", acquired_at),"
                + " holder = IF(" + free + ", " + HolderSession.MYSQL_FAMILY.holderValue() + ", holder)"
                + " WHERE lock_key = ? AND " + mySqlRowLockedAtOnce(table);
    }

    // A derived table, because MySQL refuses a subquery on the table an UPDATE writes. The EXISTS is
    // uncorrelated over a one-row derived table, so MySQL evaluates it while it optimizes the UPDATE,
    // before the UPDATE reads the row; with an IN or a join instead, MySQL locks the row in the UPDATE
    // first, waiting for it. NO_SEMIJOIN keeps later MySQL versions (8.0.16+ turn EXISTS into joins)
    // from doing the same.
    private static String mySqlRowLockedAtOnce(String table) {
        return "EXISTS (SELECT /*+ NO_SEMIJOIN() */ 1 FROM (SELECT 1 FROM " + table
                + " WHERE lock_key = ? FOR UPDATE NOWAIT) AS row_lock)";
    }

    // An UPDATE computes its new values before it waits for a row lock, and keeps them if the
    // transaction it waited for rolls back: its token would come from a clock read before that
    // holder's. So the row is locked first, in its own step, and the update joins the locked row,
    // computing its values after the wait. A held lease is filtered out before any lock, so that a
    // failed attempt locks and writes nothing; the last branch answers in the same round trip
    // whether the row exists (it sees the row as it was).
    private static String postgresTake(String table, String now, String tokenMicros, String nowPlusLease) {
        return "WITH free AS (SELECT lock_key FROM " + table + " WHERE lock_key = ? AND "
                + FREE_OR_EXPIRED.formatted(now) + " FOR NO KEY UPDATE),"
                + " taken AS (UPDATE " + table + " l SET owner = ?, holder = ?, version = l.version + 1,"
                + " token = GREATEST(l.token + 1, " + tokenMicros + "), acquired_at = " + now
                + ", expires_at = " + nowPlusLease + " FROM free WHERE l.lock_key = free.lock_key"
                + " RETURNING l.token, l.version, l.owner)"
                + " SELECT token, version, owner FROM taken"
                + " UNION ALL SELECT 0, 0, NULL FROM " + table + " WHERE lock_key = ? AND NOT EXISTS (SELECT 1 FROM taken)";
    }

    // The holder's row change is not visible to other sessions until it commits, so the statement
    // also publishes token and holder as its session's application_name until then (HolderSession),
    // and says whether it created the row (a new row's xmax is 0; a row updated on conflict has the
    // updater's): the caller commits a row it created and locks it again, so that others see it.
    // clock_timestamp() moves within a statement, so the row is judged once, in RETURNING (which
    // sees the owner and expiry as they were: the statement does not write them). Judging in each
    // SET and again there could answer "free" over a token left unchanged, when a lease ran out in
    // between. So the SET writes the next token whether or not the key is free: a busy answer rolls
    // the lock transaction back, and the write with it.
    private static String postgresLockRow(String table, String now, String tokenMicros) {
        return "INSERT INTO " + table + " AS l (holder, lock_key, version, token, acquired_at)"
                + " VALUES (?, ?, 1, " + tokenMicros + ", " + now + ")"
                + " ON CONFLICT (lock_key) DO UPDATE SET token = GREATEST(l.token + 1, " + tokenMicros + "),"
                + " version = l.version + 1, acquired_at = " + now + ", holder = EXCLUDED.holder"
                + " RETURNING l.token, CASE WHEN l.owner IS NULL OR l.expires_at <= " + now + " THEN 1 ELSE 0 END,"
                + " l.xmax = 0, " + HolderSession.POSTGRESQL.publishedAfterLock("l.token", "l.holder");
    }
}
