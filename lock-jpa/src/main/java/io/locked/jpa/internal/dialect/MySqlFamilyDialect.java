package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockDatabase;
import io.locked.jpa.LockRow;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.transaction.FenceTransaction;
import io.locked.jpa.internal.transaction.LockTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * What MariaDB ({@link MariaDbDialect}) and MySQL ({@link MySqlDialect}) share: InnoDB, Connector/J,
 * lock statements sent as text with their values written in ({@link InlinedStatement}), a
 * transaction started by {@code START TRANSACTION} (the driver sends each autocommit change as a
 * statement of its own, so this saves a round trip per lock; MariaDB sends it in its lock statement's
 * round trip, {@link #transactionStartWith()}), the session id {@code CONNECTION_ID()},
 * and lock tables whose collation decides whether two keys are one lock.
 */
abstract class MySqlFamilyDialect extends Dialect {
    /** The holder column as a pessimistic lock statement writes it: holder text, then the session. */
    static final String HOLDER_VALUE = HolderSession.holderValue("CONNECTION_ID()");
    /** MariaDB's and MySQL's answer to KILL of a session that ended meanwhile. */
    private static final int UNKNOWN_THREAD = 1094;
    /**
     * MySQL's fence, and MariaDB's through an EntityManager: the upsert without {@code RETURNING}
     * (MySQL has none, and Connector/J refuses a native INSERT that returns rows when a provider runs
     * it as a query), then a locking read, which sees the newest row even in a REPEATABLE READ snapshot.
     */
    static final FenceStatements UPSERT_THEN_READ = new FenceStatements() {
        private static final String RAISE = "INSERT INTO " + TABLE + " (lock_key, token) VALUES (?, ?)"
                + " ON DUPLICATE KEY UPDATE token = GREATEST(token, ?)";
        private static final String READ = "SELECT token FROM " + TABLE + " WHERE lock_key = ? FOR UPDATE";

        @Override
        public long raise(FenceTransaction transaction, String key, long token) throws SQLException {
            transaction.update(RAISE, key, token, token);
            return requireRow(transaction.queryLong(READ, key), key);
        }

        @Override
        public String toString() {
            return "MYSQL";
        }
    };

    // InnoDB locks every row a locking statement reads, before it judges the row: on a small table
    // the optimizer would scan it all for a batch of keys, and wait for a holder's row, or keep a busy
    // row locked until the batch commits. The primary key reads exactly the batch's rows (the
    // multiple-table DELETE: MySQL's single-table DELETE takes no index hint)
    private static final IdleRowStatements.ByIndex BY_PRIMARY_KEY = new IdleRowStatements.ByIndex(" FORCE INDEX (PRIMARY)",
            "DELETE l FROM " + LockRow.TABLE + " AS l FORCE INDEX (PRIMARY)");

    private final String renewLease;
    private final RenewalBatch renewalBatch;

    /**
     * @param grantedAt the clock read after the row lock was granted, in UTC, with microseconds: InnoDB
     *                  judges an {@code UPDATE}'s condition on the row as its locking read returned it,
     *                  after any wait, so a renewal judged on this clock is judged at the row
     */
    MySqlFamilyDialect(LockDatabase family, String schemaFile, String tokenMicros, String grantedAt) {
        super(family, schemaFile, "UTC_TIMESTAMP(6)", tokenMicros, grantedAt,
                (time, micros) -> "DATE_ADD(" + time + ", INTERVAL " + micros + " MICROSECOND)", BY_PRIMARY_KEY);
        // the lease's new end counts from the statement's start: never later than the holder counts it
        this.renewLease = "UPDATE " + LockRow.TABLE + " SET version = version + 1, expires_at = GREATEST(expires_at, "
                + nowPlus("?") + ") WHERE lock_key = ? AND owner = ? AND token = ? AND expires_at > " + grantedAt;
        this.renewalBatch = RenewalBatch.updateThenRead(BY_PRIMARY_KEY.hint(), now, grantedAt, nowPlus("?"));
    }

    @Override
    public final String renewLease() {
        return renewLease;
    }

    /** A renewal, then a read of those it renewed. */
    @Override
    public final RenewalBatch renewalBatch() {
        return renewalBatch;
    }

    @Override
    public final boolean inlinesLockStatements() {
        return true;
    }

    @Override
    public final boolean startsTransactionsBySql() {
        return true;
    }

    @Override
    public final boolean refusesLockedRowsAtOnce() {
        return true;
    }

    /**
     * The isolation of the next transaction alone, which in autocommit is the read's own statement: one
     * statement before the read, where setting the session's isolation and restoring it takes three
     * (reading it back, setting it, restoring it). A read that fails before its statement ended leaves
     * that setting for the connection's next transaction, which a rollback ends.
     */
    @Override
    public final <T> T readUncommitted(Connection connection, LockTransaction.Work<T> read) throws SQLException {
        try (Statement next = connection.createStatement()) {
            next.execute("SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED");
        }
        try {
            return read.on(connection);
        } catch (SQLException | RuntimeException failed) {
            try (Statement end = connection.createStatement()) {
                end.execute("ROLLBACK");
            } catch (SQLException alsoFailed) {
                failed.addSuppressed(alsoFailed);
            }
            throw failed;
        }
    }

    @Override
    public final String micros(String column) {
        return "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', " + column + ")";
    }

    /**
     * Zone-free: {@code UTC_TIMESTAMP(6)}, the statement's start in UTC with microseconds, which the
     * JPA path reads in a statement of its own after the row lock was granted. As text, read as UTC:
     * a provider types a function it does not know like its first argument, and would read it as a
     * timestamp in the JVM's zone, or to the second. EclipseLink renders the first form as written;
     * Hibernate knows the function, refuses the argument, and would drop the microseconds, so it gets
     * the second, through its {@code sql} function (ORM 6.6 is tested), which writes its text into the
     * SQL as it is. Every other clock of Hibernate's on MySQL is local time ({@code SYSDATE},
     * {@code CURRENT_TIMESTAMP}), which a zone with daylight saving reads an hour ahead for the first
     * hour after its autumn change, and then steps back.
     */
    @Override
    public final List<String> jpqlClocks() {
        return List.of("FUNCTION('concat', '', FUNCTION('utc_timestamp', 6))",
                "FUNCTION('concat', '', FUNCTION('sql', 'UTC_TIMESTAMP(6)'))");
    }

    @Override
    public final boolean rowLockWaitsInWholeSeconds() {
        return true;
    }

    @Override
    public final String instantMappingFile() {
        return "META-INF/locked/instant-mapping-mysql.xml";
    }

    @Override
    public final boolean endHold(Connection connection, String key, long token, String holder, long session)
            throws SQLException {
        try {
            return endOpenHold(connection, key, token, holder, session);
        } catch (SQLException failure) {
            if (failure.getErrorCode() == UNKNOWN_THREAD) {
                // the hold was open at the check, and its session ended by itself just after
                return true;
            }
            throw failure;
        }
    }

    /** {@link #endHold}, whose KILL may find the session gone already. */
    abstract boolean endOpenHold(Connection connection, String key, long token, String holder, long session)
            throws SQLException;

    /**
     * A query of the lock and fence tables' columns that do not compare keys exactly or cannot store
     * every holder: name, character set, collation.
     */
    abstract String misfitColumns();

    /** What to say about the misfit columns: what they must be, and the statements that convert them. */
    abstract String misfitAdvice(String misfits);

    /**
     * Refuses a table that would make two keys one lock ({@code 'k'} and {@code 'k '} under a PAD
     * SPACE collation) or fail on some thread names. Tables from the shipped scripts pass; a table
     * that is not there yet comes from the shipped script, and a database that is down fails the
     * first lock clearly.
     */
    @Override
    public final void checkLockTable(LockConnections connections) {
        StringBuilder misfits = new StringBuilder();
        try {
            Connection connection = connections.open();
            try (PreparedStatement query = connection.prepareStatement(misfitColumns());
                 ResultSet columns = query.executeQuery()) {
                while (columns.next()) {
                    misfits.append(misfits.isEmpty() ? "" : ", ").append(columns.getString(1)).append(" (")
                            .append(columns.getString(2)).append(' ').append(columns.getString(3)).append(')');
                }
            } finally {
                connections.close(connection);
            }
        } catch (SQLException unreachable) {
            return;
        }
        if (!misfits.isEmpty()) {
            throw new IllegalStateException("The lock table " + LockRow.TABLE + " has columns that do not compare keys"
                    + " exactly or cannot store every thread name: " + misfits + ". " + misfitAdvice(misfits.toString()));
        }
    }
}
