package io.locked.jpa.testing.server;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A MariaDB server of the test's own, on a data directory and a free port of its own, whose system
 * time zone is the test's choice (the {@code TZ} of its process): for clocks read through a
 * session's zone where that zone has daylight saving. Its test database and user are made at start.
 */
public final class PrivateZonedMariaDb extends ServerProcess {
    private static final String DATABASE = "locked_zoned";
    private static final String USER = "locked_zoned";
    private static final String PASSWORD = "locked-zoned";
    private final int port;

    private PrivateZonedMariaDb(Path dir, int port) {
        super(dir, "mariadbd");
        this.port = port;
    }

    /**
     * Creates a data directory under {@code dir}, starts the server on it in the given zone and
     * creates the test's database and user.
     *
     * @param zone    the server's system time zone, such as {@code Europe/Berlin}
     * @param options further server options
     * @throws AssertionError under CI=true if the server cannot be installed or started (elsewhere
     *                        the test is aborted with the reason)
     */
    public static PrivateZonedMariaDb start(Path dir, String zone, List<String> options)
            throws IOException, InterruptedException {
        Path installer = binary("mariadb-install-db");
        Path daemon = binary("mariadbd");
        Path client = binary("mariadb");
        if (installer == null || daemon == null || client == null) {
            unavailable("mariadb-install-db, mariadbd or mariadb not found on PATH or in /usr/sbin"
                    + " (Debian: apt-get install mariadb-server)");
        }
        run(dir, "install", List.of(installer.toString(), "--no-defaults", "--datadir=" + dir.resolve("data"),
                "--user=root", "--auth-root-authentication-method=normal", "--skip-test-db",
                "--innodb-buffer-pool-size=16M"));
        PrivateZonedMariaDb server = new PrivateZonedMariaDb(dir, freePort());
        try {
            List<String> command = new ArrayList<>(List.of(daemon.toString(), "--no-defaults",
                    "--datadir=" + dir.resolve("data"), "--port=" + server.port, "--bind-address=127.0.0.1",
                    "--socket=" + server.socket(), "--pid-file=" + dir.resolve("mariadbd.pid"), "--user=root",
                    "--skip-name-resolve", "--innodb-buffer-pool-size=16M", "--log-error=" + dir.resolve("error.log")));
            command.addAll(options);
            server.launch(command, Map.of("TZ", zone), "answer a ping", () -> server.answers(client));
            run(dir, "create-user", List.of(client.toString(), "--no-defaults", "--socket=" + server.socket(),
                    "--user=root", "-e", "CREATE DATABASE " + DATABASE + "; CREATE USER '" + USER + "'@'127.0.0.1'"
                            + " IDENTIFIED BY '" + PASSWORD + "'; GRANT ALL PRIVILEGES ON " + DATABASE + ".* TO '"
                            + USER + "'@'127.0.0.1'; GRANT PROCESS ON *.* TO '" + USER + "'@'127.0.0.1';"));
            return server;
        } catch (IOException | InterruptedException | RuntimeException | Error failure) {
            server.close();
            throw failure;
        }
    }

    /** @return the JDBC URL of its test database, through mysql-connector-j as the tests reach MariaDB */
    public String url() {
        return "jdbc:mysql://127.0.0.1:" + port + "/" + DATABASE
                + "?sslMode=DISABLED&allowPublicKeyRetrieval=true&useLocalSessionState=true&connectTimeout=3000";
    }

    /** @return the test user */
    public String user() {
        return USER;
    }

    /** @return the test user's password */
    public String password() {
        return PASSWORD;
    }

    private boolean answers(Path client) throws IOException, InterruptedException {
        Process probe = new ProcessBuilder(client.toString(), "--no-defaults", "--socket=" + socket(), "--user=root",
                "--connect-timeout=2", "-e", "SELECT 1").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        return probe.waitFor(10, TimeUnit.SECONDS) && probe.exitValue() == 0;
    }

    // a unix socket path is limited to about 100 bytes: keep it short and in the test's own directory
    private Path socket() {
        return dir.resolve("sock");
    }
}
