package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.jpa.testing.TestDatabase;
import io.locked.jpa.testing.TestProvider;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The table a provider generates from {@link LockRow} (as a unit with
 * {@code jakarta.persistence.schema-generation.database.action=create} gets it) is the table of the
 * shipped script, column by column, and the lock runs on it as is, on both paths.
 */
class SchemaFromEntityTest {

    @Test
    void h2GeneratesTheScriptsTable() throws Exception {
        String script = "jdbc:h2:mem:schema-script;DB_CLOSE_DELAY=-1";
        String generated = "jdbc:h2:mem:schema-generated;DB_CLOSE_DELAY=-1";
        try (HikariDataSource scripted = pool(script, "sa", "");
             EntityManagerFactory scriptUnit = unit(scripted, false)) {
            new JpaLockRepository(scriptUnit).createTableIfMissing();
            try (HikariDataSource fromEntity = pool(generated, "sa", "");
                 EntityManagerFactory generatedUnit = unit(fromEntity, true)) {
                assertEquals(columns(scripted, H2_COLUMNS), columns(fromEntity, H2_COLUMNS));
                assertTheLockRunsOn(generatedUnit);
            }
        }
    }

    /**
     * The fence table comes with the lock table when the provider generates the schema from the
     * unit's entities ({@link LockFenceRow} beside {@link LockRow}): a fenced write works on it at once.
     */
    @Test
    void h2GeneratesTheFenceTableTooAndAFencedWritePasses() throws Exception {
        try (HikariDataSource pool = pool("jdbc:h2:mem:schema-generated-fence;DB_CLOSE_DELAY=-1", "sa", "");
             EntityManagerFactory unit = Persistence.createEntityManagerFactory("locked-test-generated", Map.of(
                     "jakarta.persistence.nonJtaDataSource", pool,
                     "jakarta.persistence.schema-generation.database.action", "create"));
             LockManager locks = LockManagerBuilder.on(new JpaLockRepository(unit)).build();
             LockHandle held = locks.acquire(LockRequest.of("schema:fence"));
             Connection connection = pool.getConnection()) {
            connection.setAutoCommit(false);
            LockFence.check(connection, held);
            connection.commit();
            try (Statement read = connection.createStatement();
                 ResultSet fence = read.executeQuery("SELECT token FROM locked_fence WHERE lock_key = 'schema:fence'")) {
                assertTrue(fence.next());
                assertEquals(held.token(), fence.getLong(1));
            }
        }
    }

    @Test
    void postgreSqlGeneratesTheScriptsTable() throws Exception {
        TestDatabase postgres = TestDatabase.POSTGRESQL;
        postgres.requireReachable();
        try (Connection admin = postgres.connect(); Statement statement = admin.createStatement()) {
            try (ResultSet exists = statement.executeQuery("SELECT 1 FROM pg_database WHERE datname = 'locked_generated'")) {
                if (!exists.next()) {
                    statement.execute("CREATE DATABASE locked_generated");
                }
            }
        }
        String generated = postgres.url().replace("/locked_test", "/locked_generated");
        try (HikariDataSource fromEntity = pool(generated, postgres.user(), postgres.password())) {
            try (Connection connection = fromEntity.getConnection(); Statement drop = connection.createStatement()) {
                drop.execute("DROP TABLE IF EXISTS locked_lock");
            }
            try (EntityManagerFactory generatedUnit = unit(fromEntity, true);
                 HikariDataSource scripted = postgres.pool(2);
                 EntityManagerFactory scriptUnit = postgres.entityManagerFactory(scripted)) {
                new JpaLockRepository(scriptUnit).createTableIfMissing();
                assertEquals(columns(scripted, POSTGRESQL_COLUMNS), columns(fromEntity, POSTGRESQL_COLUMNS));
                assertTheLockRunsOn(generatedUnit);
            }
        }
    }

    /**
     * MariaDB generates the key column in the database's default collation (utf8mb4_general_ci here,
     * as .ci/run makes locked_generated), which ignores case and trailing spaces: 'k', 'K' and 'k '
     * would be one lock. Both paths refuse that table at start-up, naming the conversion; the JPA path
     * also when Locked cannot reach the unit's connections (EclipseLink by URL). Converted, it serves.
     */
    @Test
    void mariaDbGeneratesALooseKeyColumnWhichIsRefusedUntilConverted() throws Exception {
        TestDatabase mariaDb = TestDatabase.MARIADB;
        mariaDb.requireReachable();
        String generated = mariaDb.url().replace("/locked_test", "/locked_generated");
        try (HikariDataSource fromEntity = pool(generated, mariaDb.user(), mariaDb.password())) {
            try (Connection connection = fromEntity.getConnection(); Statement drop = connection.createStatement()) {
                drop.execute("DROP TABLE IF EXISTS locked_lock");
            }
            try (EntityManagerFactory generatedUnit = Persistence.createEntityManagerFactory(TestDatabase.UNIT, Map.of(
                    "jakarta.persistence.nonJtaDataSource", fromEntity,
                    "hibernate.dialect", "org.hibernate.dialect.MariaDBDialect",
                    "jakarta.persistence.database-product-name", "MariaDB",
                    "jakarta.persistence.database-major-version", "10",
                    "jakarta.persistence.database-minor-version", "11",
                    "jakarta.persistence.schema-generation.database.action", "create"));
                 EntityManagerFactory byUrl = Persistence.createEntityManagerFactory(
                         TestProvider.ECLIPSELINK.unit(mariaDb), Map.of(
                                 "jakarta.persistence.jdbc.url", generated,
                                 "jakarta.persistence.jdbc.user", mariaDb.user(),
                                 "jakarta.persistence.jdbc.password", mariaDb.password(),
                                 "eclipselink.weaving", "false", "eclipselink.logging.level", "SEVERE"))) {
                for (LockStatements path : new LockStatements[] {LockStatements.NATIVE, LockStatements.JPA}) {
                    IllegalStateException refused = assertThrows(IllegalStateException.class,
                            () -> JpaLockRepository.builder(generatedUnit).statements(path).build(), path.name());
                    assertTrue(refused.getMessage().contains("locked_lock.lock_key")
                            && refused.getMessage().contains(TestDatabase.MARIADB_LOCK_TABLE_CONVERSION), refused.getMessage());
                }
                IllegalStateException refusedWithoutConnections = assertThrows(IllegalStateException.class,
                        () -> JpaLockRepository.builder(byUrl).build());
                assertTrue(refusedWithoutConnections.getMessage().contains("ignores trailing spaces")
                        && refusedWithoutConnections.getMessage().contains("schema-mysql.sql"),
                        refusedWithoutConnections.getMessage());

                try (Connection connection = fromEntity.getConnection(); Statement convert = connection.createStatement()) {
                    convert.execute(TestDatabase.MARIADB_LOCK_TABLE_CONVERSION);
                }
                assertEquals(LockStatements.JPA, JpaLockRepository.builder(byUrl).build().statements());
                assertTheLockRunsOn(generatedUnit);
            }
        }
    }

    private static final String H2_COLUMNS = "SELECT COLUMN_NAME, DATA_TYPE, CHARACTER_MAXIMUM_LENGTH, DATETIME_PRECISION,"
            + " IS_NULLABLE FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = 'LOCKED_LOCK'";
    private static final String POSTGRESQL_COLUMNS = "SELECT column_name, data_type, character_maximum_length,"
            + " datetime_precision, is_nullable FROM information_schema.columns"
            + " WHERE table_schema = current_schema() AND table_name = 'locked_lock'";

    /** Name, type, length, precision and nullability of each column: what the lock relies on (not defaults). */
    private static Map<String, String> columns(HikariDataSource pool, String sql) throws SQLException {
        Map<String, String> columns = new TreeMap<>();
        try (Connection connection = pool.getConnection(); PreparedStatement read = connection.prepareStatement(sql);
             ResultSet rows = read.executeQuery()) {
            while (rows.next()) {
                columns.put(rows.getString(1).toLowerCase(), rows.getString(2) + " " + rows.getString(3) + " "
                        + rows.getString(4) + " nullable=" + rows.getString(5));
            }
        }
        assertEquals(7, columns.size(), "the lock table's columns: " + columns);
        return columns;
    }

    private static void assertTheLockRunsOn(EntityManagerFactory unit) {
        for (LockStatements path : new LockStatements[] {LockStatements.NATIVE, LockStatements.JPA}) {
            try (LockManager locks = LockManagerBuilder.on(JpaLockRepository.builder(unit).statements(path).build()).build();
                 LockManager others = LockManagerBuilder.on(JpaLockRepository.builder(unit).statements(path).build()).build()) {
                for (LockMode mode : LockMode.values()) {
                    String key = "schema:" + path + ":" + mode + ":" + UUID.randomUUID();
                    long first;
                    try (LockHandle held = locks.acquire(LockRequest.of(key).mode(mode))) {
                        first = held.token();
                        assertFalse(others.tryAcquire(LockRequest.of(key).mode(mode)).isPresent(), path + " " + mode);
                    }
                    try (LockHandle again = others.acquire(LockRequest.of(key).mode(mode))) {
                        assertTrue(again.token() > first, path + " " + mode + ": tokens increase");
                    }
                }
            }
        }
    }

    private static HikariDataSource pool(String url, String user, String password) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(4);
        return new HikariDataSource(config);
    }

    private static EntityManagerFactory unit(HikariDataSource pool, boolean generateSchema) {
        return Persistence.createEntityManagerFactory(TestDatabase.UNIT, generateSchema
                ? Map.of("jakarta.persistence.nonJtaDataSource", pool,
                        "jakarta.persistence.schema-generation.database.action", "create")
                : Map.of("jakarta.persistence.nonJtaDataSource", pool));
    }
}
