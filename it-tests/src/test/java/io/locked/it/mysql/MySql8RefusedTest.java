package io.locked.it.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.it.server.MariaDbEndpoint;
import io.locked.it.server.PrivateMySql;
import io.locked.jpa.JpaLockRepository;
import io.locked.jpa.testing.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real MySQL 8 server, started by the build, through mysql-connector-j with its default
 * properties: the lock statements are MariaDB's, so until MySQL gets statements of its own the
 * store must refuse it at start-up, saying why, rather than fail at the first lock.
 */
class MySql8RefusedTest {
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @Test
    void aMySql8ServerIsRefusedAtStartUpWithTheReason() throws Exception {
        try (PrivateMySql mysql = PrivateMySql.start(dir)) {
            MariaDbEndpoint endpoint = mysql.endpoint();
            try (Connection connection = endpoint.connect(); Statement statement = connection.createStatement();
                 ResultSet version = statement.executeQuery("SELECT VERSION()")) {
                version.next();
                assertEquals("8.0.15", version.getString(1), "the server the build started");
            }
            try (EntityManagerFactory factory = Persistence.createEntityManagerFactory(TestDatabase.UNIT, Map.of(
                    "jakarta.persistence.jdbc.url", endpoint.url(),
                    "jakarta.persistence.jdbc.user", endpoint.user(),
                    "jakarta.persistence.jdbc.password", endpoint.password()))) {
                IllegalStateException refused = assertThrows(IllegalStateException.class, () -> new JpaLockRepository(factory));
                assertTrue(refused.getMessage().contains("8.0.15") && refused.getMessage().contains("not MariaDB")
                        && refused.getMessage().contains("MySQL is not supported yet"), refused.getMessage());
            }
        }
    }
}
