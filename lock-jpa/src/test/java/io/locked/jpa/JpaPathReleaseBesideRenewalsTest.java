package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locked.jpa.testing.StatementHook;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.Lease;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * On the JPA path the core may renew a lease and release it at once: a renewal in flight writes the
 * row (its version moves) between the release's read and its write. The release must still free the
 * row, which is its own: a release that gave up ("kept meeting concurrent writes") would leave the key
 * taken until the lease runs out, and tell its holder the store failed. Here a renewal lands between
 * every read and write of the release (a write of the row's version from another session, before each
 * of the release's updates), far more often than in life.
 */
class JpaPathReleaseBesideRenewalsTest {

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"H2", "MARIADB", "POSTGRESQL"})
    @Timeout(60)
    void aReleaseFreesItsRowWhileRenewalsInFlightKeepMovingItsVersion(TestDatabase database) throws Exception {
        StatementHook hook = new StatementHook(database);
        database.requireReachable();
        HikariConfig config = new HikariConfig();
        config.setDataSource(hook);
        config.setMaximumPoolSize(4);
        config.setPoolName("locked-hooked-" + database.name().toLowerCase(Locale.ROOT));
        try (HikariDataSource pool = new HikariDataSource(config)) {
            EntityManagerFactory factory = database.entityManagerFactory(pool);
            try {
                JpaLockRepository locks = JpaLockRepository.builder(factory).statements(LockStatements.JPA).build();
                if (database.hasSchemaScript()) {
                    locks.createTableIfMissing();
                }
                String key = "release-beside-renewals:" + UUID.randomUUID();
                Lease lease = locks.takeLease(key, "owner-1", "test", Duration.ofSeconds(30), Duration.ZERO);
                AtomicInteger renewalsLanded = new AtomicInteger();
                hook.beforeEvery(sql -> isRelease(sql), () -> {
                    renewAsAnotherSession(database, key);
                    renewalsLanded.incrementAndGet();
                });
                boolean released;
                try {
                    released = locks.releaseLease(lease);
                } finally {
                    hook.disarm();
                }
                assertTrue(renewalsLanded.get() > 0, "no renewal landed between the release's read and its write");
                assertTrue(released, "the live lease was released");
                assertFalse(locks.inspect(key).orElseThrow().held(), "the released key is free");
            } finally {
                factory.close();
            }
        }
    }

    /** The JPA path's release: an update of the lock row that frees its owner. */
    private static boolean isRelease(String sql) {
        String text = sql.toLowerCase(Locale.ROOT).replace(" ", "");
        return text.startsWith("updatelocked_lock") && text.contains("owner=null");
    }

    /** What a renewal's write does to the row: its version moves, its lease stays the owner's. */
    private static void renewAsAnotherSession(TestDatabase database, String key) throws Exception {
        try (Connection other = database.connect();
             PreparedStatement renew = other.prepareStatement("UPDATE locked_lock SET version = version + 1 WHERE lock_key = ?")) {
            renew.setString(1, key);
            renew.executeUpdate();
        }
    }
}
