package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockRow;
import io.locked.jpa.internal.transaction.LockTransaction;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * How another JVM finds a pessimistic holder's database session, and ends it for a forced release.
 * The holder's row change is uncommitted while it holds the lock, so each database shows it its own
 * way ({@link HolderSession}): MariaDB, MySQL and H2 read uncommitted rows, whose holder column
 * names the session; PostgreSQL reads none, and its {@code pg_stat_activity} names the session that
 * row-locks a row.
 */
public interface HolderSessions {

    /**
     * The start of the inspection's read of lock rows, up to its WHERE, for the given columns of the
     * lock table {@code l}; where {@link #showsHolderSessions()} says so, three more columns follow:
     * the row-locking session's id, its published holder and its transaction's start in micros.
     */
    default String selectRows(String columns) {
        return "SELECT " + columns + " FROM " + LockRow.TABLE + " l WHERE ";
    }

    /**
     * Whether the database names the session that row-locks a row ({@link #selectRows}); where it
     * does not, rows are read uncommitted, and a {@code FOR UPDATE SKIP LOCKED} read of the same keys
     * tells which rows are row-locked right now.
     */
    default boolean showsHolderSessions() {
        return false;
    }

    /**
     * Runs a read of the lock table on an autocommit connection at {@code READ UNCOMMITTED}, where
     * {@link #showsHolderSessions()} says no: a pessimistic holder's row change shows only so.
     *
     * @param read one statement
     */
    default <T> T readUncommitted(Connection connection, LockTransaction.Work<T> read) throws SQLException {
        return LockTransaction.readAt(connection, Connection.TRANSACTION_READ_UNCOMMITTED, read);
    }

    /**
     * Whether a read of {@link #readUncommitted} finds its keys first, in a statement that reads the
     * key's index alone, and then reads their rows by key. H2 (2.5) scans an index at {@code READ
     * UNCOMMITTED} on a snapshot newer than its statement's snapshot of the table: a row inserted in
     * between (another JVM's first use of a key in the range) is found in the index and not in the
     * table, and H2 runs the statement again on the same snapshot until its lock timeout, then fails
     * it (and HikariCP closes the connection). An index read alone never looks in the table, and the
     * rows of keys found before the second statement began are in that statement's snapshot.
     */
    default boolean readsUncommittedKeysFirst() {
        return false;
    }

    /**
     * Whether a {@code FOR UPDATE NOWAIT} read of one key fails at once on a row another transaction
     * locks, a row it has just inserted included, and answers otherwise: then that one statement
     * inspects a key nobody row-locks, its row (committed) or its absence.
     */
    default boolean refusesLockedRowsAtOnce() {
        return false;
    }

    /**
     * Whether a {@code LIKE 'prefix%'} read of the lock table is one range of the key's index whatever
     * the column's collation: then the rows under a prefix cost one index range, where naming each key
     * costs a look-up each. PostgreSQL serves such a {@code LIKE} from the index only under the
     * {@code C} collation; MariaDB, MySQL and H2 under any.
     */
    default boolean servesPrefixesFromIndex() {
        return true;
    }

    /**
     * Ends the session of one pessimistic hold, the one inspection read, only while that hold is
     * still open: its holder may have released the key since, and its pool lent the same session to
     * other work (a holder of another key, the application's transaction), which must not be ended.
     * Check and end come as close together as the database allows, on one connection in autocommit;
     * between them a holder may still commit its release, which the caller tells by the committed
     * token.
     *
     * @param token   the hold's token
     * @param holder  the hold's holder text, without the session mark
     * @param session the hold's session id
     * @return false if the hold had ended, and nothing was ended
     */
    boolean endHold(Connection connection, String key, long token, String holder, long session) throws SQLException;

    /**
     * Whether {@link #endHold} reads the hold and ends its session in one step of the server's, so that
     * no new work of that session reaches the server between the two: a hold its holder rolled back
     * in between costs at worst its idle session. (The end lands an instant later all the same:
     * PostgreSQL's is a signal the session acts on at its next statement, which is lost, new work of
     * its pool's; MariaDB's {@code KILL} flags the session. A clock-token hold rolled back in that instant
     * reads as ended: docs/operations.md.) Where the uncommitted read is a statement of its own
     * (H2, MySQL), a hold that ended by a rollback after it, whose pooled session went at once to other
     * work (a holder of another key), would have that work ended: the native path there does not keep
     * clock tokens, whose releases roll back ({@link io.locked.jpa.LockTokens#CLOCK}), and Locked's own
     * holds end by a commit or with their session.
     */
    default boolean readsAndEndsHoldsInOneStep() {
        return true;
    }
}
