package io.locked.jpa.internal.connection;

import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Tells "another transaction holds the row" (busy: wait and try again), and "another transaction
 * created the row", apart from a database failure, by SQL state and vendor code.
 */
public final class LockConflicts {
    // 40001 serialization/deadlock (Connector/J's lock wait timeout too), 40P01 deadlock, 55P03 lock not available
    private static final Set<String> BUSY_STATES = Set.of("40001", "40P01", "55P03", "HYT00");
    // 1205 lock wait timeout, 1213 deadlock, 3572 NOWAIT (MySQL), 50200 H2 lock timeout, 40001 H2 deadlock
    private static final Set<Integer> BUSY_CODES = Set.of(1205, 1213, 3572, 50200, 40001);

    // 08 connection, 0A unsupported, 22 data, 28 authorization, 3D/3F no such catalog/schema,
    // 42 syntax or access rule (a missing table or column), 57P server shutting down
    private static final List<String> FAILURE_STATE_CLASSES =
            List.of("08", "0A", "22", "28", "3D", "3F", "42", "57P");

    // H2's session closed (ABORT_SESSION, a forced release's end): 90121 for a statement begun after the close,
    // 90098 for one the close met while it ran (the session lets go of its database, and the statement's next
    // use of it finds none), whose autocommit work the close rolled back
    private static final Set<Integer> H2_CLOSED = Set.of(90121, 90098);
    // MariaDB's ER_CHECKREAD: under innodb_snapshot_isolation (on by default from 11.8) a write to a row
    // changed since the transaction's snapshot fails with it, in SQL state HY000, and rolls back
    private static final int SNAPSHOT_CONFLICT = 1020;

    private static final Set<String> MISSING_TABLE_STATES = Set.of("42S02", "42P01", "42X05", "42501");

    private LockConflicts() {
    }

    public static boolean isBusy(Throwable failure) {
        return anySqlException(failure, sql -> (sql.getSQLState() != null && BUSY_STATES.contains(sql.getSQLState()))
                || BUSY_CODES.contains(sql.getErrorCode()));
    }

    /**
     * A failure whatever exception a provider wrapped it in (EclipseLink reports any failure of a
     * {@code PESSIMISTIC_WRITE} query as a {@code PessimisticLockException}): no connection, bad SQL or
     * data, no access, a missing table or schema, a server shutting down.
     */
    public static boolean isFailure(Throwable failure) {
        return anySqlException(failure, sql -> sql.getSQLState() != null
                && FAILURE_STATE_CLASSES.stream().anyMatch(sql.getSQLState()::startsWith));
    }

    /**
     * A write that lost to a concurrent write of the same row and was rolled back (a serialization
     * failure, a deadlock, MariaDB's snapshot conflict): not a lock wait that ran out, which MySQL's
     * driver reports in the same SQL state (1205).
     */
    public static boolean isWriteConflict(Throwable failure) {
        return anySqlException(failure, sql -> "40001".equals(sql.getSQLState()) && sql.getErrorCode() != 1205
                || sql.getErrorCode() == SNAPSHOT_CONFLICT);
    }

    /**
     * The connection's session is gone: its server ended it (a forced release that raced the hold's
     * own release, a restart), or its network went. A pooled connection shows it only at its next
     * statement: 08 connection exception (Connector/J after a KILL, and any broken connection),
     * PostgreSQL's 57P01 (terminated by an administrator), H2's 90121 and 90098 (the session is closed).
     * A connection exception may also be a reply lost after the statement ran.
     */
    public static boolean isSessionGone(Throwable failure) {
        return isSessionEnded(failure) || anySqlException(failure,
                sql -> sql.getSQLState() != null && sql.getSQLState().startsWith("08"));
    }

    /**
     * A statement its session's end interrupted while the server ran it: MariaDB's and MySQL's error 1317
     * (SQL state 70100), which a {@code KILL} that meets a running {@code COMMIT} gives, whether or not the
     * commit landed.
     */
    public static boolean isInterruptedByItsSessionsEnd(Throwable failure) {
        return anySqlException(failure, sql -> "70100".equals(sql.getSQLState()) || sql.getErrorCode() == 1317);
    }

    /**
     * The statement went unanswered for its whole bound: the driver's network timeout (a socket read
     * timeout, which both Connector/J and the PostgreSQL driver report as a lost connection, 08) or a
     * query timeout. The server may still be running it, or not be running at all.
     */
    public static boolean isTimeout(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.net.SocketTimeoutException || t instanceof java.sql.SQLTimeoutException) {
                return true;
            }
        }
        return false;
    }

    /**
     * The server ended the connection's session, and says so: PostgreSQL's 57P01, H2's 90121 and 90098. A
     * statement that meets it did not run, or ran in a transaction the end rolled back. (MariaDB and
     * MySQL close a killed session's socket without a word: a connection exception, as a reply lost
     * after the statement ran would be.)
     */
    public static boolean isSessionEnded(Throwable failure) {
        return anySqlException(failure, sql -> "57P01".equals(sql.getSQLState()) || H2_CLOSED.contains(sql.getErrorCode()));
    }

    /** @return whether an SQLException in the failure's chain of causes answers the question */
    private static boolean anySqlException(Throwable failure, Predicate<SQLException> question) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException sql && question.test(sql)) {
                return true;
            }
        }
        return false;
    }

    /**
     * @return whether a failure's chain of causes says a statement named a table that is not there: 42S02 (MariaDB, MySQL, H2),
     *         42P01 (PostgreSQL), 42X05 (Derby), 42501 (HSQLDB, also for missing privileges)
     */
    public static boolean isMissingTable(Throwable failure) {
        return anySqlException(failure, sql -> MISSING_TABLE_STATES.contains(sql.getSQLState())
                || sql.getErrorCode() == 1146 || sql.getErrorCode() == 42102);
    }

    /** @return whether the statement broke a unique key: another transaction created the same row */
    public static boolean isDuplicate(SQLException failure) {
        return failure.getSQLState() != null && failure.getSQLState().startsWith("23");
    }
}
