package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.testing.OutsideRowLocks;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.Lease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A renewal that meets a row locked by another session gives up on the server, before its client
 * does: a statement that kept waiting after its client's network timeout would land later, on a
 * lease its holder no longer counts on (and, before renewals were judged at the row, on a clock read
 * before the wait). So the failure is the server's own (MariaDB's {@code max_statement_time},
 * MySQL's lock wait timeout, PostgreSQL's {@code statement_timeout}), not the client's read timeout,
 * and no statement of it runs on after the call returned. Alone and in a batch, native path.
 */
class RenewalBoundOnTheServerTest {
    /** A third of it, at least 2 s, bounds the call; half of that the statement on the server. */
    private static final Duration RENEWED = Duration.ofSeconds(6);

    static Stream<Arguments> databases() {
        List<Arguments> cases = new ArrayList<>();
        for (TestDatabase database : List.of(TestDatabase.MARIADB, TestDatabase.MYSQL8, TestDatabase.POSTGRESQL)) {
            cases.add(Arguments.of(database, false));
            cases.add(Arguments.of(database, true));
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}, in a batch: {1}")
    @MethodSource("databases")
    @Timeout(60)
    void aRenewalBlockedByAnotherSessionsRowLockGivesUpOnTheServerWithinItsBound(TestDatabase database, boolean batched)
            throws Exception {
        try (Store store = database.open(4, Map.of(), settings -> settings.statements(LockStatements.NATIVE))) {
            JpaLockRepository locks = store.repository();
            String prefix = "bound-on-the-server:" + UUID.randomUUID() + ":";
            Lease blocked = locks.takeLease(prefix + "a-blocked", "owner-blocked", "test", RENEWED, Duration.ZERO);
            Lease other = locks.takeLease(prefix + "b-other", "owner-other", "test", RENEWED, Duration.ZERO);
            try (Connection outside = database.connect()) {
                OutsideRowLocks.lock(outside, blocked.key());
                LockStoreUnavailableException failure = assertThrows(LockStoreUnavailableException.class,
                        () -> {
                            if (batched) {
                                locks.renewLeases(List.of(blocked, other), RENEWED);
                            } else {
                                locks.renewLease(blocked, RENEWED);
                            }
                        });
                assertTrue(endedByTheServer(failure), "the server did not end the renewal: the client gave up on it: "
                        + causes(failure));
                assertEquals(0, renewalsRunning(database), "a renewal still runs on the server after its call returned");
                outside.rollback();
            }
            assertTrue(locks.releaseLease(blocked));
            assertTrue(locks.releaseLease(other));
        }
    }

    /** MariaDB's max_statement_time (1969), MySQL's lock wait timeout (1205), PostgreSQL's statement_timeout (57014). */
    private static boolean endedByTheServer(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && (sql.getErrorCode() == 1969 || sql.getErrorCode() == 1205
                    || "57014".equals(sql.getSQLState()))) {
                return true;
            }
        }
        return false;
    }

    private static String causes(Throwable failure) {
        StringBuilder text = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            text.append(t instanceof SQLException sql ? "[" + sql.getSQLState() + "/" + sql.getErrorCode() + "] " : "")
                    .append(t).append("; ");
        }
        return text.toString();
    }

    /** Renewals of the lock table running in the test database now, as the server lists its sessions. */
    private static int renewalsRunning(TestDatabase database) throws SQLException {
        String sql = database == TestDatabase.POSTGRESQL
                ? "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'active'"
                        + " AND query LIKE '%UPDATE locked_lock%' AND pid <> pg_backend_pid()"
                : "SELECT COUNT(*) FROM information_schema.processlist WHERE db = DATABASE() AND info LIKE '%UPDATE locked_lock%'"
                        + " AND id <> CONNECTION_ID()";
        try (Connection connection = database.connect(); PreparedStatement query = connection.prepareStatement(sql);
             ResultSet count = query.executeQuery()) {
            count.next();
            return count.getInt(1);
        }
    }
}
