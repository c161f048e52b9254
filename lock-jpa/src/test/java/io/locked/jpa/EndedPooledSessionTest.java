package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.Lease;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A forced release checks that a pessimistic hold is open and then ends its session: two steps on
 * every database (inside one statement on H2, MariaDB and PostgreSQL). A holder that releases
 * between them gives its session back to its pool, idle, and the end reaches it there. The lock's
 * next statement on that pooled session must not fail for it: it runs again on another connection,
 * where that is safe. A pessimistic lock always is (nothing of it was committed), and so is a lease's
 * take (a first take that ran left a lease of this acquisition's own). Its other statements are
 * where the server says it ended the session (PostgreSQL, H2): MariaDB and MySQL close a killed
 * session without a word, which looks like a reply lost after the statement ran, and a lease's
 * hand-over or release must not run twice then ({@code LostHandOverReplyTest}).
 */
class EndedPooledSessionTest {

    private static String key(String name) {
        return "ended-session:" + name + ":" + UUID.randomUUID();
    }

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"H2", "POSTGRESQL"})
    void aLeaseIsTakenRenewedAndReleasedOnAPoolWhoseIdleSessionWasEnded(TestDatabase database) throws Exception {
        try (Store store = database.open(1, Map.of(), settings -> settings.statements(LockStatements.NATIVE))) {
            JpaLockRepository locks = store.repository();
            String key = key("lease");
            endTheIdleSession(store);
            Lease lease = locks.takeLease(key, "owner-1", "test", Duration.ofSeconds(30), Duration.ZERO);
            assertTrue(lease != null, "the take found the key busy");
            endTheIdleSession(store);
            lease = locks.renewLease(lease, Duration.ofSeconds(30));
            assertTrue(lease != null, "the renewal found the lease lost");
            endTheIdleSession(store);
            assertTrue(locks.releaseLease(lease), "the release found the lease lost");
            assertEquals(0, store.borrowedConnections());
        }
    }

    /**
     * A take may run again after any lost session, MariaDB's and MySQL's silent close included: a
     * first take that ran left a lease in this acquisition's own name, never a second holder.
     */
    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "MYSQL8"})
    void aLeaseIsTakenOnAPoolWhoseIdleSessionWasKilledWithoutAWord(TestDatabase database) throws Exception {
        try (Store store = database.open(1, Map.of(), settings -> settings.statements(LockStatements.NATIVE))) {
            JpaLockRepository locks = store.repository();
            String key = key("silent-kill");
            // the key's row first, so that the take is the first statement on the killed session
            assertTrue(locks.releaseLease(locks.takeLease(key, "owner-0", "test", Duration.ofSeconds(30), Duration.ZERO)));
            endTheIdleSession(store);
            Lease lease = locks.takeLease(key, "owner-1", "test", Duration.ofSeconds(30), Duration.ZERO);
            assertTrue(lease != null, "the take found the key busy");
            assertTrue(locks.releaseLease(lease), "the release found the lease lost");
            assertEquals(0, store.borrowedConnections());
        }
    }

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"H2", "MARIADB", "MYSQL8", "POSTGRESQL"})
    void aPessimisticLockIsTakenOnAPoolWhoseIdleSessionWasEnded(TestDatabase database) throws Exception {
        try (Store store = database.open(2, Map.of(), settings -> settings.statements(LockStatements.NATIVE));
             LockManager locks = LockManagerBuilder.on(store.repository()).build()) {
            // the pool lends a thread the connection it gave back last, so the lock gets the ended session
            endTheIdleSession(store);
            try (LockHandle held = locks.acquire(LockRequest.of(key("pessimistic")).mode(LockMode.PESSIMISTIC))) {
                assertTrue(held.isValid());
            }
        }
    }

    /**
     * Borrows the pool's idle connection to learn its session, gives it back, and ends that session
     * from outside, as a forced release would.
     */
    private static void endTheIdleSession(Store store) throws SQLException {
        long session;
        try (Connection pooled = store.pool().dataSource().getConnection();
             Statement read = pooled.createStatement();
             ResultSet id = read.executeQuery(switch (store.database()) {
                 case MARIADB, MYSQL8 -> "SELECT CONNECTION_ID()";
                 case POSTGRESQL -> "SELECT pg_backend_pid()";
                 case H2 -> "SELECT SESSION_ID()";
                 default -> throw new IllegalArgumentException(store.database().name());
             })) {
            id.next();
            session = id.getLong(1);
        }
        store.endSession(session);
    }
}
