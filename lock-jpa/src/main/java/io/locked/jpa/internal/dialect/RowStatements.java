package io.locked.jpa.internal.dialect;

import io.locked.jpa.StandbyCommits;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.function.UnaryOperator;

/**
 * The statements that differ per database for one key's row: a lease's take and hand-over, and the
 * pessimistic acquisition, with how each answers. Each is one statement (one round trip).
 */
public interface RowStatements {
    /**
     * The label of the pessimistic acquisition's column that reads the token clock again after the
     * token was drawn: a reading below the token means the token is the row's plus one (the
     * clock is behind the row's last token), which {@link io.locked.jpa.LockTokens#CLOCK} must commit.
     */
    String TOKEN_CLOCK = "token_clock";

    /**
     * The take, its parameters bound: one compare-and-set that succeeds only on a free or expired
     * row, or on one in the caller's own name (a take of this acquisition that ran, whose answer was
     * lost: taken again, with a new token), returning token, version and owner: the lease was taken if
     * the owner is the caller's.
     * Where {@link #takeTellsMissingRow()} says so, no row comes back only when the key has no row;
     * elsewhere no row comes back for a missing row and for a held lease alike. It queues at most
     * waitMillis for a row lock (a pessimistic holder's): past it the statement fails as busy. Where
     * {@link #settingsFirst()} says so, its first result is the settings'. Databases that send the take
     * as text have {@link #takeLeaseText} instead.
     */
    default PreparedStatement takeLease(Connection connection, String owner, String holder, long leaseMicros,
                                        String key, long waitMillis) throws SQLException {
        throw new IllegalStateException(this + " sends its take as text: takeLeaseText");
    }

    /**
     * The take of {@link #takeLease} as text with its values written in ({@link InlinedStatement}),
     * for the databases that {@link #inlinesLockStatements()}. On a Galera node the node must not run
     * the statement again after it sent its rows.
     */
    default String takeLeaseText(String owner, String holder, long leaseMicros, String key, long waitMillis,
                                 boolean galera) {
        throw new IllegalStateException(this + " prepares its take: takeLease");
    }

    /**
     * Whether the pessimistic acquisition reads its token clock after the row lock was granted. Where it
     * does not (MySQL reads the statement's start), a holder that came and went between that reading and
     * the grant can have drawn a higher token; only its commit keeps the next token above it, so clock
     * tokens, whose releases roll back, are not kept on such a database's native path.
     */
    default boolean readsTokenClockAfterRowLock() {
        return true;
    }

    /**
     * A query whose one row is true where this server reads the token clock at the statement's start
     * after all, before any row-lock wait (MariaDB started with {@code --sysdate-is-now}, where
     * {@code SYSDATE()} is {@code NOW()}); null where the dialect's token clock is read when computed
     * on every server. Asked once per lock store ({@code KnownTokenClock}).
     */
    default String tokenClockAtStatementStart() {
        return null;
    }

    /**
     * Where {@link #tokenClockAtStatementStart()} found the clock read at the statement's start: a statement
     * for the pessimistic acquisition's transaction, after its lock statement, that raises the locked
     * row's token to the clock read now, after the grant, so that it passes every token a holder
     * granted during the wait drew and lost in a rollback. Parameter: key; returns the token and the
     * clock ({@link #TOKEN_CLOCK}).
     */
    default String tokenAfterRowLock() {
        throw new IllegalStateException(this + " reads its token clock when it computes it");
    }

    /** Whether {@link #takeLease} answers "no row" only for a key that has no row. */
    default boolean takeTellsMissingRow() {
        return true;
    }

    /**
     * The pessimistic acquisition in one statement, queueing at most the caller's wait for the row
     * lock: it row-locks the key and writes the next token, which counts only if no live lease holds
     * the key (a busy answer is rolled back by the caller). Parameters: the lock wait as text where
     * {@link #settingsFirst()} says so, then holder, key. Returns the token and 1 if the key was free
     * (0: a live lease holds it), then where {@link #createsRowUnseen()} says so whether it created the
     * row, and last the token clock read after the token was drawn ({@link #TOKEN_CLOCK}), except where it
     * answers by its insert id (MySQL, which does not keep clock tokens: {@link #readsTokenClockAfterRowLock}).
     * Databases that send it as text have {@link #lockRowText} instead.
     */
    default String lockRow() {
        throw new IllegalStateException(this + " sends its lock statement as text: lockRowText");
    }

    /**
     * {@link #lockRow()} prepared for a wait, its parameters bound. Run it with {@code execute()}: its
     * rows come after {@link #resultsBeforeLockRows} results of its own.
     */
    default PreparedStatement lockRow(Connection connection, String holder, String key, long waitMillis)
            throws SQLException {
        PreparedStatement lock = connection.prepareStatement(lockRow());
        int parameter = 1;
        if (settingsFirst()) {
            lock.setString(parameter++, lockWaitParameter(waitMillis));
        }
        lock.setString(parameter++, holder);
        lock.setString(parameter, key);
        return lock;
    }

    /**
     * @return how many results a prepared pessimistic acquisition ({@link #lockRow(Connection, String,
     *         String, long)}) for that wait gives before its rows: its settings' where
     *         {@link #settingsFirst()} says so
     */
    default int resultsBeforeLockRows(long waitMillis) {
        return settingsFirst() ? 1 : 0;
    }

    /**
     * {@link #lockRow()} as text with holder and key written in ({@link InlinedStatement}). On a Galera
     * node a last column names the node ({@code host:port}) that holds the row lock.
     */
    default String lockRowText(String holder, String key, long waitMillis, boolean galera) {
        throw new IllegalStateException(this + " prepares its lock statement: lockRow");
    }

    /**
     * @return how a statement is sent so that it first starts the transaction it runs in, in one round trip
     *         (MariaDB's anonymous compound statement): a pessimistic acquisition that starts its transaction
     *         by {@code START TRANSACTION} sends it with its lock statement; null where the database has no such
     *         form, or sends no {@code START TRANSACTION} ({@link Dialect#startsTransactionsBySql()})
     */
    default UnaryOperator<String> transactionStartWith() {
        return null;
    }

    /**
     * The next holder of a row that the connection's transaction holds, as one statement with holder and
     * key written in: the holder and a token from the clock, where the clock is above the row's token.
     * It answers by its count (0: the clock is not above the token, so the lock statement must draw it) and
     * the token as the insert id. Null where the lock statement is sent again instead.
     */
    default String handOverRowText(String holder, String key) {
        return null;
    }

    /**
     * A lease's take as an {@code UPDATE} of a row that exists, with its values written in (as
     * {@link #takeLeaseText}, which also creates a missing row): it answers as a take does where
     * {@link #answersByInsertId()} says so (0 rows found: no row; the token as the insert id; none: a live lease
     * holds the key). Null where the database has none.
     */
    default String takeRowText(String owner, String holder, long leaseMicros, String key, long waitMillis) {
        return null;
    }

    /**
     * Whether the lock statements (a pessimistic acquisition, a lease's take and release) are sent as text with
     * their values written in ({@link InlinedStatement}) rather than prepared.
     */
    default boolean inlinesLockStatements() {
        return false;
    }

    /**
     * Whether a take and a pessimistic acquisition answer by counts and the insert id rather than
     * by rows: 0 rows found means the key has no row; the insert id is the token; 0, a live
     * lease holds the key.
     */
    default boolean answersByInsertId() {
        return false;
    }

    /**
     * (the lock wait first where {@link #settingsFirst()} says so) new owner, holder, lease micros,
     * key, owner, token: the lease passed to another owner with a new token, if still live; returns
     * the new token (as a row, or as the last insert id where {@link #handOverTokenAsInsertId()} says
     * so). The row is the giver's, so its lock wait is short.
     */
    String handOverLease();

    /** Whether {@link #handOverLease} gives its token as the last insert id rather than as a row. */
    default boolean handOverTokenAsInsertId() {
        return false;
    }

    /**
     * Whether a pessimistic lock statement that created the key's row leaves it invisible to other
     * sessions until it commits: the row is committed and locked again, once per key, so that
     * inspection from another session sees the hold.
     */
    default boolean createsRowUnseen() {
        return false;
    }

    /**
     * Whether a statement's lock wait is bounded by settings sent in the same round trip, as a first
     * statement: the statement's first result is theirs, and its first parameter the lock wait.
     */
    default boolean settingsFirst() {
        return false;
    }

    /**
     * The settings sent first, in the same round trip, with a plain release of a lease (no minimum
     * hold): here none (null). A database may let the release's commit return before it reaches the
     * disk ({@link PostgreSqlDialect}): of all the lease's writes only this one may be lost in a server
     * crash without harm. Such a loss gives the key back to the releasing owner until its lease runs
     * out, a delay and never a second holder: a take that saw the row free commits after the release,
     * and its wait for the disk covers the release as well. Every other write waits: a take lost in a
     * crash would leave a holder the database forgot; a renewal or hand-over lost would leave the row
     * ending earlier than its holder believes, so that after a restart another owner could take the
     * key while the holder still believes it holds it; a release with a minimum hold lost would leave
     * the row ending at the lease's expiry, which may come before the hold's end, so that a job meant
     * to run at most once per period could run twice.
     */
    default String releaseSettings() {
        return null;
    }

    /**
     * The settings sent first, in the same round trip, with the statement that leaves a minimum hold
     * in a pessimistic holder's row, or null: where the lock transaction's commit would not wait for the
     * disk, they make it wait, as the hold must survive a crash ({@link #releaseSettings()}). Sent alone
     * too, before the commit of a clock token ({@link io.locked.jpa.LockTokens#CLOCK}), which is committed
     * only where the row must keep it.
     */
    default String holdRowSettings() {
        return null;
    }

    /**
     * The settings sent first, in the same round trip, with a lease's renewal (one or a batch) and a
     * release with a minimum hold, or null. Where the user asked that the lock's writes that must
     * survive a crash or failover wait for the standbys ({@link #withStandbyWait}), they set
     * the commit's wait for that transaction alone; takes, hand-overs and pessimistic locks carry it
     * in their own settings, and a forced release sends it first in its transaction.
     */
    default String durableWriteSettings() {
        return null;
    }

    /**
     * These statements with the lock's writes that must survive a crash or a failover committed under
     * that {@code synchronous_commit} ({@code locked.postgresql.synchronous-commit}).
     *
     * @throws IllegalStateException on a database other than PostgreSQL, which has no such setting
     */
    default Dialect withStandbyWait(StandbyCommits synchronousCommit) {
        throw new IllegalStateException(StandbyCommits.KEY + "=" + synchronousCommit.level()
                + " applies to PostgreSQL only; this lock store's database is " + this);
    }

    /** @return the first parameter of a statement whose {@link #settingsFirst()} bound its lock wait */
    default String lockWaitParameter(long waitMillis) {
        throw new IllegalStateException(this + " has no settings before its statements");
    }
}
