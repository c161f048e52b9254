package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * H2 tells a session that {@code ABORT_SESSION} (a forced release's end) closed in two ways: 90121 for a
 * statement begun after the close, 90098 ("The database has been closed") for one the close met while it ran.
 * Both are the server's word that it ended the session, so that the lock's statement on it runs again on another
 * connection ({@code EndedPooledSessionTest}); the second was told as the store unavailable (a take in the
 * randomized run, 2026-12-02).
 */
class H2SessionEndedTest {

    @Test
    void aStatementTheCloseMetWhileItRanIsTheSessionEnded() throws Exception {
        try (Connection victim = TestDatabase.H2.connect(); Connection operator = TestDatabase.H2.connect()) {
            long session;
            try (Statement read = victim.createStatement(); ResultSet id = read.executeQuery("SELECT SESSION_ID()")) {
                id.next();
                session = id.getLong(1);
            }
            // a statement that runs until the close meets it: seconds of rows, more than any machine gets through first
            CompletableFuture<Void> running = CompletableFuture.runAsync(() -> {
                try (Statement count = victim.createStatement()) {
                    count.executeQuery("SELECT COUNT(*) FROM SYSTEM_RANGE(1, 1000000000000) WHERE RAND() < 2");
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            awaitRunning(operator, session);
            try (Statement abort = operator.createStatement()) {
                abort.execute("CALL ABORT_SESSION(" + session + ")");
            }
            ExecutionException ended = assertThrows(ExecutionException.class, () -> running.get(60, TimeUnit.SECONDS));
            SQLException told = (SQLException) ended.getCause().getCause();
            assertEquals(90098, told.getErrorCode(), told.toString());
            assertTrue(LockConflicts.isSessionEnded(told), told.toString());
            SQLException after = assertThrows(SQLException.class, () -> victim.createStatement().execute("SELECT 1"));
            assertEquals(90121, after.getErrorCode(), after.toString());
            assertTrue(LockConflicts.isSessionEnded(after), after.toString());
        }
    }

    /** Until the session's statement shows in the server's session list. */
    private static void awaitRunning(Connection operator, long session) throws Exception {
        while (true) {
            try (Statement look = operator.createStatement();
                 ResultSet row = look.executeQuery("SELECT EXECUTING_STATEMENT FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID = "
                         + session)) {
                if (row.next() && row.getString(1) != null && row.getString(1).contains("SYSTEM_RANGE")) {
                    return;
                }
            }
            Thread.sleep(5);
        }
    }
}
