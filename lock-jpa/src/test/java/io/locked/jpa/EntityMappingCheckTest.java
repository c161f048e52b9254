package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.locked.jpa.testing.TestDatabase;
import io.locked.jpa.testing.TestProvider;
import io.locked.spi.Lease;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TimeZone;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An EclipseLink 4 unit is refused at start-up, naming the mapping file it needs, when it would store
 * the lock row's times wrongly: without the file (EclipseLink serializes an Instant), or with the
 * file for the wrong kind of column (on MySQL and MariaDB, an offset date-time that Connector/J
 * shifts into the JVM's zone), and on MySQL 8 with the script's binary key. With the right file, the
 * row holds the database clock's time in any JVM zone.
 */
class EntityMappingCheckTest {
    // an offset of +13:45 (+12:45 in its winter): no whole-hour slip can hide in it
    private static final TimeZone FAR_ZONE = TimeZone.getTimeZone("Pacific/Chatham");

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"H2", "MARIADB", "POSTGRESQL"})
    void aUnitWithoutTheMappingFileIsRefusedNamingIt(TestDatabase database) {
        database.requireReachable();
        String file = database == TestDatabase.MARIADB ? "instant-mapping-mysql.xml" : "instant-mapping.xml";
        try (HikariDataSource pool = database.pool(2);
             EntityManagerFactory factory = database.entityManagerFactory(pool, "locked-test-eclipselink-bare",
                     TestProvider.ECLIPSELINK)) {
            JpaLockRepository.Builder unit = JpaLockRepository.builder(factory).statements(LockStatements.JPA);
            // checked when built, or, where the table is not there yet, once it was made
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> unit.build().createTableIfMissing());
            assertTrue(refused.getMessage().contains("<mapping-file>META-INF/locked/" + file + "</mapping-file>"),
                    refused.getMessage());
            assertEquals(0, pool.getHikariPoolMXBean().getActiveConnections(), "the check gave its connection back");
        }
    }

    @Test
    void theTimeZoneMappingOnMariaDbIsRefusedInAJvmOutsideUtc() {
        TestDatabase database = TestDatabase.MARIADB;
        database.requireReachable();
        inFarZone(() -> {
            try (HikariDataSource pool = database.pool(2);
                 EntityManagerFactory factory = database.entityManagerFactory(pool, "locked-test-eclipselink",
                         TestProvider.ECLIPSELINK)) {
                JpaLockRepository.Builder unit = JpaLockRepository.builder(factory).statements(LockStatements.JPA);
                // checked when built, or, where the table is not there yet, once it was made
                IllegalStateException refused = assertThrows(IllegalStateException.class,
                        () -> unit.build().createTableIfMissing());
                assertTrue(refused.getMessage().contains("shifted")
                        && refused.getMessage().contains("META-INF/locked/instant-mapping-mysql.xml"), refused.getMessage());
            }
        });
    }

    /**
     * MySQL 8's script keys rows by VARBINARY (8.0.15 has no exact text collation), which EclipseLink
     * reads back as hexadecimal digits: it would never find a lock's row again. The message names the
     * column that works (8.0.17+).
     */
    @Test
    void onMySql8TheScriptsBinaryKeyIsRefusedWithEclipseLinkNamingTheColumnThatWorks() {
        TestDatabase database = TestDatabase.MYSQL8;
        database.requireReachable();
        try (HikariDataSource pool = database.pool(2);
             EntityManagerFactory factory = database.entityManagerFactory(pool, TestProvider.ECLIPSELINK.unit(database),
                     TestProvider.ECLIPSELINK)) {
            JpaLockRepository.Builder unit = JpaLockRepository.builder(factory).statements(LockStatements.JPA);
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> unit.build().createTableIfMissing());
            // a key of spaces and tabs, read back as the hexadecimal digits of those bytes (20 and 09)
            assertTrue(refused.getMessage().matches("(?s).*came back as '(20|09)+'.*")
                    && refused.getMessage().contains("COLLATE utf8mb4_0900_bin"), refused.getMessage());
        }
    }

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"H2", "MARIADB", "POSTGRESQL"})
    void withItsMappingFileTheRowHoldsTheDatabaseClocksTimeInAnyJvmZone(TestDatabase database) {
        database.requireReachable();
        inFarZone(() -> {
            try (HikariDataSource pool = database.pool(2);
                 EntityManagerFactory factory = database.entityManagerFactory(pool,
                         TestProvider.ECLIPSELINK.unit(database), TestProvider.ECLIPSELINK)) {
                JpaLockRepository repository = JpaLockRepository.builder(factory).statements(LockStatements.JPA).build();
                repository.createTableIfMissing();
                String key = "mapping:" + UUID.randomUUID();
                Lease lease = repository.takeLease(key, "owner", "holder", Duration.ofMinutes(1), Duration.ofSeconds(5));
                assertNotNull(lease, "a new key's lease");
                // a new key's token is the database clock at acquisition, in microseconds: the row's
                // acquired_at is that same clock reading, to the second (some drivers drop the fraction)
                assertEquals(lease.token() / 1_000_000, acquiredAtEpochSecond(database, key),
                        "acquired_at against the token, in seconds since the epoch");
                assertTrue(repository.releaseLease(lease));
            }
        });
    }

    /**
     * JVMs that start together check at once: their probe rows never collide (three worker JVMs once
     * met in a deadlock on MariaDB inserting the same probe key, and one failed to start).
     */
    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "POSTGRESQL"})
    void manyStartUpsAtOnceAllPassTheCheck(TestDatabase database) throws Exception {
        database.requireReachable();
        int startUps = 8;
        try (HikariDataSource pool = database.pool(startUps);
             EntityManagerFactory factory = database.entityManagerFactory(pool)) {
            JpaLockRepository.builder(factory).statements(LockStatements.JPA).build().createTableIfMissing();
            CyclicBarrier together = new CyclicBarrier(startUps);
            ExecutorService threads = Executors.newFixedThreadPool(startUps);
            try {
                List<Future<LockStatements>> built = new ArrayList<>();
                for (int i = 0; i < startUps; i++) {
                    built.add(threads.submit(() -> {
                        together.await(10, TimeUnit.SECONDS);
                        return JpaLockRepository.builder(factory).statements(LockStatements.JPA).build().statements();
                    }));
                }
                for (Future<LockStatements> startUp : built) {
                    assertEquals(LockStatements.JPA, startUp.get(60, TimeUnit.SECONDS));
                }
            } finally {
                threads.shutdownNow();
            }
        }
    }

    private static long acquiredAtEpochSecond(TestDatabase database, String key) throws Exception {
        String seconds = switch (database) {
            case MARIADB, MYSQL8 -> "TIMESTAMPDIFF(SECOND, '1970-01-01 00:00:00', acquired_at)";
            case POSTGRESQL -> "CAST(FLOOR(EXTRACT(EPOCH FROM acquired_at)) AS BIGINT)";
            case H2 -> "DATEDIFF(SECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', acquired_at)";
            default -> throw new IllegalArgumentException(database.name());
        };
        try (Connection connection = database.connect();
             PreparedStatement read = connection.prepareStatement("SELECT " + seconds + " FROM locked_lock WHERE lock_key = ?")) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                assertTrue(row.next(), "the lease's row");
                return row.getLong(1);
            }
        }
    }

    private interface Body {
        void run() throws Exception;
    }

    /** The JVM's default zone far from UTC while the body runs; the pool's connections are made in it. */
    private static void inFarZone(Body body) {
        TimeZone original = TimeZone.getDefault();
        TimeZone.setDefault(FAR_ZONE);
        try {
            body.run();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new AssertionError(e);
        } finally {
            TimeZone.setDefault(original);
        }
    }
}
