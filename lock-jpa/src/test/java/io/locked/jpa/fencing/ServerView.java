package io.locked.jpa.fencing;

import io.locked.jpa.testing.InnoDbTransactions;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The server's own view of the test user's sessions: whether a statement on the fence table waits
 * for a row lock (the condition the ordering tests wait for, instead of sleeping).
 *
 * <p>On MariaDB the waits are read from {@code SHOW ENGINE INNODB STATUS} ({@link InnoDbTransactions}),
 * not from {@code information_schema.innodb_trx}: that table is a cache that InnoDB refreshes only
 * after 100 ms without a read, so another poller on the same server (a parallel build) can keep it
 * stale for as long as it polls.
 */
public final class ServerView {
    private static long lastInnodbTablesRead = System.nanoTime() - TimeUnit.SECONDS.toNanos(1);

    private ServerView() {
    }

    /**
     * Waits until a session of the test user waits for a row lock in a statement on
     * {@code locked_fence}.
     *
     * @param database the database
     * @param waiter   the work expected to wait; if it ends first, the wait is reported as missing
     * @throws AssertionError if no such wait shows within 30 seconds, or the waiter ended first
     */
    public static void awaitFenceWait(TestDatabase database, Future<?> waiter) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        try (Connection observer = database.connect()) {
            while (!fenceWaits(database, observer)) {
                if (waiter.isDone()) {
                    waiter.get(); // its failure, if any, says more
                    throw new AssertionError("the fence did not wait: it ended before any lock wait showed");
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("no statement on locked_fence waited for a row lock within 30 s");
                }
                // a poll interval: the condition itself is read from the server (MySQL's lock tables
                // between reads at least 100 ms apart, see awaitFreshInnodbTables)
                Thread.sleep(5);
            }
        }
    }

    private static boolean fenceWaits(TestDatabase database, Connection observer)
            throws SQLException, InterruptedException {
        if (database == TestDatabase.MARIADB) {
            String fenceTable = "of table `" + observer.getCatalog() + "`.`locked_fence`";
            for (String transaction : InnoDbTransactions.of(observer)) {
                if (transaction.contains("TRX HAS BEEN WAITING") && transaction.contains(fenceTable)
                        && database.user().equals(InnoDbTransactions.userOf(transaction))) {
                    return true;
                }
            }
            return false;
        }
        if (database == TestDatabase.MYSQL8) {
            awaitFreshInnodbTables();
        }
        String sql = switch (database) {
            case POSTGRESQL -> "SELECT COUNT(*) FROM pg_stat_activity WHERE usename = ? AND pid <> pg_backend_pid()"
                    + " AND wait_event_type = 'Lock' AND query LIKE '%locked_fence%'";
            // H2 names no blocker while an insert waits for another transaction's insert of the same
            // key: there, a statement on the fence still running is the best view of the wait. A
            // fence that does not wait is still caught, by the lost update it lets through.
            case H2 -> "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE USER_NAME = UPPER(?)"
                    + " AND SESSION_ID <> SESSION_ID() AND (BLOCKER_ID IS NOT NULL OR SESSION_STATE = 'RUNNING')"
                    + " AND EXECUTING_STATEMENT LIKE '%locked_fence%'";
            case MYSQL8 -> "SELECT COUNT(*) FROM information_schema.innodb_trx t JOIN information_schema.processlist p"
                    + " ON p.id = t.trx_mysql_thread_id WHERE p.user = ? AND t.trx_state = 'LOCK WAIT'"
                    + " AND t.trx_query LIKE '%locked_fence%'";
            case MARIADB -> throw new IllegalStateException("read above");
            case DERBY, HSQLDB -> throw new IllegalArgumentException("the fence tests do not observe " + database);
        };
        try (PreparedStatement statement = observer.prepareStatement(sql)) {
            statement.setString(1, database.user());
            try (ResultSet result = statement.executeQuery()) {
                result.next();
                return result.getInt(1) > 0;
            }
        }
    }

    /**
     * InnoDB refreshes the snapshot behind information_schema.innodb_trx only when nobody read it for
     * 100 ms: a read sooner after the last one sees the transactions as they were then.
     */
    private static synchronized void awaitFreshInnodbTables() throws InterruptedException {
        long sinceLastRead = System.nanoTime() - lastInnodbTablesRead;
        long stale = TimeUnit.MILLISECONDS.toNanos(150);
        if (sinceLastRead < stale) {
            TimeUnit.NANOSECONDS.sleep(stale - sinceLastRead);
        }
        lastInnodbTablesRead = System.nanoTime();
    }
}
