package io.locked.it.server;

import io.locked.jpa.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a worker finds its MariaDB: the shared test server, a private one, or a proxy in front of
 * either. Workers get it as the environment that {@link TestDatabase#MARIADB} reads.
 *
 * @param url      JDBC URL
 * @param user     user
 * @param password password
 */
public record MariaDbEndpoint(String url, String user, String password) implements WorkerDatabase {
    private static final Pattern HOST_PORT = Pattern.compile("//([^/:]+)(?::(\\d+))?/");

    /** @return the shared server of the tests (requires it to answer) */
    public static MariaDbEndpoint shared() {
        TestDatabase.MARIADB.requireReachable();
        return new MariaDbEndpoint(TestDatabase.MARIADB.url(), TestDatabase.MARIADB.user(), TestDatabase.MARIADB.password());
    }

    public String host() {
        return hostPort().group(1);
    }

    public int port() {
        String port = hostPort().group(2);
        return port == null ? 3306 : Integer.parseInt(port);
    }

    private Matcher hostPort() {
        Matcher matcher = HOST_PORT.matcher(url);
        if (!matcher.find()) {
            throw new IllegalArgumentException("no host in " + url);
        }
        return matcher;
    }

    /** @return the same database reached through 127.0.0.1 on another port (a proxy) */
    public MariaDbEndpoint through(int localPort) {
        return new MariaDbEndpoint(HOST_PORT.matcher(url).replaceFirst("//127.0.0.1:" + localPort + "/"), user, password);
    }

    /** @return the same database with one more parameter of the JDBC URL, {@code name=value} */
    public MariaDbEndpoint with(String parameter) {
        return new MariaDbEndpoint(url + (url.contains("?") ? "&" : "?") + parameter, user, password);
    }

    @Override
    public TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    /** @return what a worker JVM's environment needs to use this endpoint as its MariaDB */
    @Override
    public Map<String, String> workerEnvironment() {
        return Map.of("LOCKED_MARIADB_URL", url, "LOCKED_MARIADB_USER", user, "LOCKED_MARIADB_PASSWORD", password);
    }

    @Override
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }
}
