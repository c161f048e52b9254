package io.locked.it.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.jpa.JpaLockRepository;
import io.locked.jpa.LockDatabase;
import io.locked.jpa.testing.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A unit configured by its JDBC URL alone (no DataSource, so Locked reads neither a dialect nor a
 * product name it was told), through mysql-connector-j: Connector/J's URL says jdbc:mysql: for
 * MySQL and MariaDB alike, and reports MariaDB as "5.5.5-10.x-MariaDB". A real MySQL 8 (the private
 * server the build provides, with the driver's default properties) gets the MySQL statements, the
 * shared MariaDB server still gets MariaDB's, and a lock works in both modes on each.
 */
class MySql8DetectedTest {
    @ParameterizedTest(name = "{0} is detected as {1}")
    @CsvSource({"MYSQL8, MYSQL", "MARIADB, MARIADB"})
    void theServerBehindAJdbcMysqlUrlIsDetected(TestDatabase server, LockDatabase expected) throws Exception {
        server.requireReachable();
        if (server == TestDatabase.MYSQL8) {
            try (Connection connection = server.connect(); Statement statement = connection.createStatement();
                 ResultSet version = statement.executeQuery("SELECT VERSION()")) {
                version.next();
                assertEquals("8.0.15", version.getString(1), "the server the build started");
            }
        }
        assertTrue(server.url().startsWith("jdbc:mysql:"), server.url());
        try (EntityManagerFactory factory = Persistence.createEntityManagerFactory(TestDatabase.UNIT, Map.of(
                "jakarta.persistence.jdbc.url", server.url(),
                "jakarta.persistence.jdbc.user", server.user(),
                "jakarta.persistence.jdbc.password", server.password()))) {
            JpaLockRepository repository = new JpaLockRepository(factory);
            assertEquals(Optional.of(expected), repository.database());
            repository.createTableIfMissing();
            try (LockManager locks = LockManagerBuilder.on(repository).build()) {
                for (LockMode mode : LockMode.values()) {
                    String key = "it:detected:" + mode + ":" + UUID.randomUUID();
                    try (LockHandle held = locks.acquire(LockRequest.of(key).mode(mode))) {
                        assertTrue(held.isValid() && held.token() > 0, mode + " lock on " + server);
                    }
                }
            }
        }
    }
}
