package io.locked.it.server;

import io.locked.jpa.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;

/**
 * Where a worker finds its PostgreSQL: a private server, or several of them behind one multi-host
 * URL. Workers get it as the environment that {@link TestDatabase#POSTGRESQL} reads.
 *
 * @param url      JDBC URL
 * @param user     user
 * @param password password
 */
public record PostgreSqlEndpoint(String url, String user, String password) implements WorkerDatabase {
    @Override
    public TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Override
    public Map<String, String> workerEnvironment() {
        return Map.of("LOCKED_POSTGRESQL_URL", url, "LOCKED_POSTGRESQL_USER", user, "LOCKED_POSTGRESQL_PASSWORD", password);
    }

    @Override
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }
}
