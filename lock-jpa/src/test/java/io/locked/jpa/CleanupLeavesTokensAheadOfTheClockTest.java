package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * After the database clock stepped back, a free row's token is ahead of the clock: a cleanup that deleted
 * it would let the key's next row draw its token from the clock, below the deleted one. The cleanup leaves
 * such rows until the clock has passed their token. The step back is simulated by moving the row's
 * committed token an hour ahead of the clock, as a row drawn before a step back of an hour would be.
 */
class CleanupLeavesTokensAheadOfTheClockTest {
    private static final long HOUR_MICROS = 3_600_000_000L;

    static Stream<Arguments> databasesAndPaths() {
        return Stream.of(TestDatabase.H2, TestDatabase.MARIADB, TestDatabase.POSTGRESQL, TestDatabase.MYSQL8)
                .flatMap(database -> Stream.of(LockStatements.NATIVE, LockStatements.JPA)
                        .map(path -> Arguments.of(database, path)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databasesAndPaths")
    void aRowWhoseTokenIsAheadOfTheClockIsNotDeletedAndTokensKeepRising(TestDatabase database, LockStatements path)
            throws SQLException {
        String ahead = "cleanup-ahead:" + UUID.randomUUID();
        String behind = "cleanup-behind:" + UUID.randomUUID();
        try (Store store = database.open(4, Map.of(), settings -> settings.statements(path));
             LockManager locks = LockManagerBuilder.on(store.repository()).build()) {
            for (String key : new String[] {ahead, behind}) {
                for (LockMode mode : LockMode.values()) {
                    locks.acquire(LockRequest.of(key).mode(mode)).close();
                }
            }
            long raised = locks.inspect(ahead).token().orElseThrow() + HOUR_MICROS;
            setToken(database, ahead, raised);

            store.repository().deleteIdleRows(Duration.ofNanos(1000));

            assertTrue(!store.rowExists(behind), "the idle row whose token the clock has passed was not deleted");
            assertTrue(store.rowExists(ahead), "the idle row whose token is ahead of the clock was deleted");
            for (LockMode mode : LockMode.values()) {
                try (LockHandle next = locks.acquire(LockRequest.of(ahead).mode(mode))) {
                    assertTrue(next.token() > raised, mode + ": token " + next.token() + " not above " + raised);
                    raised = next.token();
                }
            }
        }
    }

    private static void setToken(TestDatabase database, String key, long token) throws SQLException {
        try (Connection connection = database.connect();
             PreparedStatement write = connection.prepareStatement("UPDATE locked_lock SET token = ? WHERE lock_key = ?")) {
            write.setLong(1, token);
            write.setString(2, key);
            write.executeUpdate();
        }
    }
}
