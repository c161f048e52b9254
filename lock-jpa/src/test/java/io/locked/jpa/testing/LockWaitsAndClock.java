package io.locked.jpa.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * What a test database's server shows from outside the store under test: whether a statement in the
 * test database waits for a row lock right now, and the database's clock. H2, MariaDB, MySQL 8 and
 * PostgreSQL.
 */
public final class LockWaitsAndClock {
    private static final DateTimeFormatter MYSQL_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");
    /**
     * InnoDB refreshes the view behind {@code innodb_trx} only when nobody read it for 100 ms: a
     * tighter poll would keep reading a snapshot taken before the wait began.
     */
    private static final long INNODB_VIEW_MILLIS = 150;

    private LockWaitsAndClock() {
    }

    /** Waits until a statement in the test database waits for a row lock; the caller's timeout bounds it. */
    public static void awaitRowLockWait(TestDatabase database) throws SQLException, InterruptedException {
        while (!waitsForRowLock(database)) {
            Thread.sleep(database == TestDatabase.MARIADB || database == TestDatabase.MYSQL8 ? INNODB_VIEW_MILLIS : 20);
        }
    }

    /** @return whether a statement in the test database waits for a row lock right now */
    public static boolean waitsForRowLock(TestDatabase database) throws SQLException {
        String sql = switch (database) {
            case MARIADB, MYSQL8 -> "SELECT COUNT(*) FROM information_schema.innodb_trx t JOIN information_schema.processlist p"
                    + " ON p.id = t.trx_mysql_thread_id WHERE t.trx_state = 'LOCK WAIT' AND p.db = DATABASE()";
            case POSTGRESQL -> "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database()"
                    + " AND wait_event_type = 'Lock'";
            case H2 -> "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL";
            case DERBY, HSQLDB -> throw new UnsupportedOperationException(database + " is not looked at here");
        };
        try (Connection connection = database.connect(); PreparedStatement query = connection.prepareStatement(sql);
             ResultSet count = query.executeQuery()) {
            count.next();
            return count.getInt(1) > 0;
        }
    }

    /** @return the database's clock, read now in a statement of its own */
    public static Instant clock(TestDatabase database) throws SQLException {
        String sql = switch (database) {
            case MARIADB, MYSQL8 -> "SELECT CAST(UTC_TIMESTAMP(6) AS CHAR)";
            case POSTGRESQL -> "SELECT clock_timestamp()";
            // autocommit: the transaction's start is the statement's
            case H2 -> "SELECT CURRENT_TIMESTAMP(6)";
            case DERBY, HSQLDB -> throw new UnsupportedOperationException(database + " is not looked at here");
        };
        try (Connection connection = database.connect(); PreparedStatement query = connection.prepareStatement(sql);
             ResultSet now = query.executeQuery()) {
            now.next();
            return database == TestDatabase.MARIADB || database == TestDatabase.MYSQL8
                    ? LocalDateTime.parse(now.getString(1), MYSQL_TIME).toInstant(ZoneOffset.UTC)
                    : now.getObject(1, OffsetDateTime.class).toInstant();
        }
    }

    /** Waits until the database's clock has passed the given time; the caller's timeout bounds it. */
    public static void awaitClockPast(TestDatabase database, Instant time) throws SQLException, InterruptedException {
        while (!clock(database).isAfter(time)) {
            Thread.sleep(50);
        }
    }
}
