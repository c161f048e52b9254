package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockDatabase;
import io.locked.jpa.LockRow;
import io.locked.jpa.internal.connection.LockConnections;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.function.BinaryOperator;

/**
 * Everything Locked knows about one database with native statements: its lock, take, renew,
 * hand-over and release statements, its clock and token expressions, its lock-wait bound, how a
 * pessimistic holder's session is published and ended, its fence statements and its start-up
 * checks. One subclass per database ({@link MariaDbDialect}, {@link MySqlDialect},
 * {@link PostgreSqlDialect}, {@link H2Dialect}), registered in {@link Dialects}. The statements
 * that are the same everywhere are built here from each database's clock.
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
 * a pessimistic acquisition is one statement in the lock's own transaction, which MySQL starts with
 * {@code START TRANSACTION} and MariaDB with the lock statement itself ({@link #transactionStartWith()}),
 * both ending it with {@code COMMIT} (so a pessimistic cycle is three round trips on MySQL, two on MariaDB,
 * an optimistic one two). Settings sent first in the same round trip (PostgreSQL's:
 * {@link #settingsFirst()}, {@link #releaseSettings()}) add no round trip. A batch of renewals ({@link #renewalBatch()}) is one
 * statement on PostgreSQL and H2, two on MariaDB and MySQL. Creating a missing row adds statements on H2, MySQL and
 * PostgreSQL (which commits a row its lock statement created, so that other sessions see the hold),
 * once per key. MySQL bounds a renewal's lock wait through the session: two statements more per
 * renewal call ({@link RenewalStatements}).
 */
public abstract class Dialect implements RowStatements, RenewalStatements, HolderSessions {
    private static final String FREE_OR_EXPIRED = "(owner IS NULL OR expires_at <= %s)";

    private final LockDatabase family;
    public final String schemaResource;
    /** The database's clock, for judging leases. */
    public final String now;
    /** The clock in microseconds, read when the expression is computed: see {@link Dialect}. */
    public final String tokenMicros;
    /**
     * The clock as a time, read where the expression is computed, which in this database's lock and
     * renewal statements is after the row lock was granted: when an acquisition starts (its
     * {@code acquired_at}, from which a minimum hold counts) and when a renewal judges its lease.
     */
    public final String grantedAt;
    private final BinaryOperator<String> plusMicros;
    /** key, owner, token. */
    public final String releaseLease;
    /**
     * hold micros, key, owner, token: as {@link #releaseLease}, but the lease now ends that long after
     * it was taken (in the past, if that has passed: free at once). For a minimum hold.
     */
    public final String holdLease;
    /**
     * owner, hold micros, key, token: in a pessimistic holder's transaction, before its commit: the row
     * gets a lease in the acquisition's name that ends that long after the row was locked.
     */
    public final String holdRow;
    /** key, owner. */
    public final String ownersToken;
    /** key, owner. */
    public final String freeOwnExpiredLease;
    /** key. */
    public final String rowExists;
    /** The cleanup's statements, which find and delete idle rows in batches. */
    public final IdleRowStatements idleRows;

    /**
     * @param family          the database's public name
     * @param schemaFile      its schema script under {@code META-INF/locked/}
     * @param now             the database's clock, for judging leases
     * @param tokenMicros     the clock in microseconds as read when the expression is computed, which
     *                        for a token is after the row lock was granted
     * @param grantedAt       the clock as a time, read after the row lock was granted ({@link #grantedAt})
     * @param plusMicros      a time plus a number of microseconds (both expressions)
     * @param idleRowsByIndex the index hint and the DELETE form with which a batch of idle rows is read
     *                        by its primary key ({@link MySqlFamilyDialect}), or null
     */
    protected Dialect(LockDatabase family, String schemaFile, String now, String tokenMicros, String grantedAt,
                      BinaryOperator<String> plusMicros, IdleRowStatements.ByIndex idleRowsByIndex) {
        String table = LockRow.TABLE;
        this.family = family;
        this.schemaResource = "META-INF/locked/" + schemaFile;
        this.now = now;
        this.tokenMicros = tokenMicros;
        this.grantedAt = grantedAt;
        this.plusMicros = plusMicros;
        this.ownersToken = "SELECT token FROM " + table + " WHERE lock_key = ? AND owner = ?";
        this.releaseLease = "UPDATE " + table + " SET owner = NULL, expires_at = NULL, version = version + 1"
                + " WHERE lock_key = ? AND owner = ? AND token = ? AND expires_at > " + now;
        // the lease's start is acquired_at, written on the database's clock by the take, the hand-over
        // or the pessimistic lock statement of this very acquisition
        String heldUntil = plusMicros.apply("acquired_at", "?");
        this.holdLease = "UPDATE " + table + " SET version = version + 1, expires_at = " + heldUntil
                + " WHERE lock_key = ? AND owner = ? AND token = ? AND expires_at > " + now;
        this.holdRow = "UPDATE " + table + " SET owner = ?, version = version + 1, expires_at = " + heldUntil
                + " WHERE lock_key = ? AND token = ?";
        this.freeOwnExpiredLease = "UPDATE " + table + " SET owner = NULL, expires_at = NULL, version = version + 1"
                + " WHERE lock_key = ? AND owner = ?";
        this.rowExists = "SELECT 1 FROM " + table + " WHERE lock_key = ?";
        this.idleRows = IdleRowStatements.on(nowPlus("?"), micros(now), idleRowsByIndex);
    }

    /** @return the dialect of a database family, null for null (a database without native statements) */
    public static Dialect of(LockDatabase family) {
        return Dialects.of(family);
    }

    /** @return the public name of this dialect's database */
    LockDatabase family() {
        return family;
    }

    /** @return now plus the microseconds of the expression given */
    public final String nowPlus(String micros) {
        return plus(now, micros);
    }

    /** @return a time plus the microseconds of the expression given (both expressions) */
    protected final String plus(String time, String micros) {
        return plusMicros.apply(time, micros);
    }

    /** @return the condition "the row's lease is free or has expired", on this database's clock */
    protected final String freeOrExpired() {
        return FREE_OR_EXPIRED.formatted(now);
    }

    /**
     * @return the condition of a take: "the row's lease is free, has expired, or is the owner's" (a
     *         parameter): a take sent again for one acquisition, after its reply was lost, takes its
     *         own lease again (MariaDB and MySQL write this condition their own way)
     */
    protected final String freeOrOwners() {
        return "(owner IS NULL OR expires_at <= " + now + " OR owner = ?)";
    }

    /** @return the next token of a row, drawn after its row lock was granted */
    protected final String nextToken() {
        return "GREATEST(token + 1, " + tokenMicros + ")";
    }

    /**
     * The hand-over as one UPDATE, its token expression left as {@code %s}: new owner, holder, lease
     * micros, key, owner, token. The new lease starts, and the old one is judged, on the clock read at
     * the row ({@link #grantedAt}): where the database judges and computes an UPDATE after its wait for
     * the row (InnoDB; H2 computes after it), a lease that ran out during the wait is not handed on.
     */
    protected final String handOverUpdate() {
        return "UPDATE " + LockRow.TABLE + " SET owner = ?, holder = ?, version = version + 1, token = %s,"
                + " acquired_at = " + grantedAt + ", expires_at = " + plus(grantedAt, "?")
                + " WHERE lock_key = ? AND owner = ? AND token = ? AND expires_at > " + grantedAt;
    }

    /**
     * How this database raises a key's fence row in the caller's transaction.
     *
     * @param throughEntityManager whether the statements run as an EntityManager's native queries
     */
    public abstract FenceStatements fence(boolean throughEntityManager);

    // ---- start-up ----

    /**
     * Whether a URL, a provider's dialect name or a product name (lower case) names this database.
     * {@link Dialects#named} asks the dialects in their order.
     */
    protected abstract boolean namedIn(String text);

    /**
     * Whether a text that names this dialect may name another database of its family, which only
     * the server's version tells apart ({@link #byServerVersion}).
     */
    public boolean needsServerVersion() {
        return false;
    }

    /** @return the dialect of the database whose server reports this version, within this one's family */
    public Dialect byServerVersion(String serverVersion) {
        return this;
    }

    /**
     * Refuses, at start-up, a lock table that would make two keys one lock or cannot store every
     * holder (the database's collations): nothing to check by default.
     *
     * @throws IllegalStateException naming the columns and the statement that converts them
     */
    public void checkLockTable(LockConnections connections) {
    }

    /** Whether the database may be a Galera cluster's node, which the lock must recognise ({@link GaleraNode}). */
    public boolean mayBeGaleraNode() {
        return false;
    }

    /** Whether the lock's transaction starts and ends by statements rather than the driver's autocommit switch. */
    public boolean startsTransactionsBySql() {
        return false;
    }

    // ---- the JPA path ----

    /**
     * The database's clock as JPQL expressions, in the order a provider is offered them: the first
     * it parses is read. The value must be the time the database computes it (not the
     * transaction's start): a pessimistic acquisition draws its token from it after its row lock.
     */
    public abstract List<String> jpqlClocks();

    /**
     * Whether a JPA provider bounds a row lock's wait here in whole seconds ({@code FOR UPDATE WAIT n},
     * {@code innodb_lock_wait_timeout}): the JPA path then asks for whole seconds only, rounded down,
     * and tries again without waiting for the rest. Hibernate 6 rounded the lock timeout hint down,
     * Hibernate 7 rounds it up, which would let a wait run up to a second past its end.
     */
    public boolean rowLockWaitsInWholeSeconds() {
        return false;
    }

    /** The mapping file a provider other than Hibernate needs for the lock row's times. */
    public String instantMappingFile() {
        return "META-INF/locked/instant-mapping.xml";
    }

    /** What to do when a provider other than Hibernate cannot read the key column. */
    public String keyColumnAdvice() {
        return "Make the key column text (VARCHAR) that compares exactly, as the shipped schema script does";
    }

    // ---- inspection ----

    /** @return a timestamp column (or expression) in microseconds since the epoch */
    public abstract String micros(String column);

    /**
     * @param statement a statement that row-locks one key's row
     * @param seconds   how long it may wait for the row lock
     * @return the statement with its own wait bound where the database sets one per statement
     */
    public String withRowLockWait(String statement, int seconds) {
        return statement;
    }

    /** @return a statement that draws a token, with the database reading its token clock in UTC */
    public String drawingTokenInUtc(String statement) {
        return statement;
    }

    /**
     * Creates the key's row if missing, waiting at most waitMillis for another transaction creating
     * it. Run with {@code execute()}: where {@link #settingsFirst()} says so, its first result is the
     * settings'.
     */
    public abstract PreparedStatement insertIfAbsent(Connection connection, String key, long waitMillis)
            throws SQLException;

    /**
     * Bounds the next statements' lock wait on this connection by waitMillis, until it is closed,
     * where the database has no bound of its own per statement (H2).
     */
    public SessionLockTimeout boundLockWait(Connection connection, long waitMillis) throws SQLException {
        return SessionLockTimeout.UNCHANGED;
    }

    /**
     * How long a statement that creates a key's row may wait on the server for a lock, at most, when it
     * is given waitMillis: longer where the database cannot bound it as finely (MySQL), and then the
     * client must wait for the server's answer that long ({@link io.locked.jpa.internal.connection.NetworkTimeouts#atLeast}).
     */
    public long rowCreationServerMillis(long waitMillis) {
        return waitMillis;
    }

    /** Bounds the lock wait of a statement that creates a key's row, as {@link #boundLockWait}. */
    public SessionLockTimeout boundRowCreation(Connection connection, long waitMillis) throws SQLException {
        return boundLockWait(connection, waitMillis);
    }

    @Override
    public String toString() {
        return family.name();
    }
}
