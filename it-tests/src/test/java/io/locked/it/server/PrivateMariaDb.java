package io.locked.it.server;

import io.locked.jpa.testing.server.ServerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A MariaDB server of the test's own, on a data directory and a free port of its own, so that it
 * can be stopped and started while workers hold locks on it; the shared server of the other builds
 * is never touched. A Galera node is one of these with its cluster's options ({@link GaleraCluster}).
 */
public final class PrivateMariaDb extends ServerProcess {
    private static final String DATABASE = "locked_faults";
    private static final String USER = "locked_faults";
    private static final String PASSWORD = "locked-faults";
    private static final List<String> SMALL = List.of("--innodb-buffer-pool-size=16M", "--innodb-log-file-size=8M");
    private final int port;
    private final List<String> options;

    private PrivateMariaDb(Path dir, int port, List<String> options) {
        super(dir, "mariadbd");
        this.port = port;
        this.options = List.copyOf(options);
    }

    /**
     * Creates a data directory under {@code dir}, starts the server on it and creates the test's
     * database and user (with a password, reached over TCP like any application's).
     *
     * @throws AssertionError under CI=true if the server cannot be installed or started (elsewhere
     *                        the test is aborted with the reason)
     */
    public static PrivateMariaDb start(Path dir) throws IOException, InterruptedException {
        PrivateMariaDb server = install(dir, freePort(), List.of());
        try {
            server.start();
            server.createDatabaseAndUser();
            return server;
        } catch (IOException | InterruptedException | RuntimeException | Error failure) {
            server.close();
            throw failure;
        }
    }

    /**
     * Creates a data directory under {@code dir} for a server that is not started yet.
     *
     * @param port    its SQL port
     * @param options further server options, given at every start
     */
    public static PrivateMariaDb install(Path dir, int port, List<String> options) throws IOException, InterruptedException {
        Path installer = binary("mariadb-install-db");
        Path daemon = binary("mariadbd");
        if (installer == null || daemon == null) {
            unavailable("mariadb-install-db or mariadbd not found on PATH or in /usr/sbin (Debian: apt-get install mariadb-server)");
        }
        List<String> install = new ArrayList<>(List.of(installer.toString(), "--no-defaults", "--datadir=" + dir.resolve("data"),
                "--user=root", "--auth-root-authentication-method=normal", "--skip-test-db"));
        install.addAll(SMALL);
        run(dir, "install", install);
        return new PrivateMariaDb(dir, port, options);
    }

    /**
     * A server whose data directory under {@code dir} is created empty, not installed: for a Galera
     * node that joins a running cluster, whose state transfer replaces the data directory anyway.
     *
     * @param port    its SQL port
     * @param options further server options, given at every start
     */
    public static PrivateMariaDb joiner(Path dir, int port, List<String> options) throws IOException {
        Files.createDirectories(dir.resolve("data"));
        return new PrivateMariaDb(dir, port, options);
    }

    /** Creates the test's database and user (with a password, reached over TCP like any application's). */
    public void createDatabaseAndUser() throws IOException, InterruptedException {
        query("CREATE DATABASE " + DATABASE + "; "
                + "CREATE USER '" + USER + "'@'127.0.0.1' IDENTIFIED BY '" + PASSWORD + "'; "
                + "GRANT ALL PRIVILEGES ON " + DATABASE + ".* TO '" + USER + "'@'127.0.0.1'; "
                + "GRANT PROCESS ON *.* TO '" + USER + "'@'127.0.0.1';");
    }

    /** @return its SQL port */
    public int port() {
        return port;
    }

    /** @return how JDBC reaches it */
    public MariaDbEndpoint endpoint() {
        return new MariaDbEndpoint("jdbc:mysql://127.0.0.1:" + port + "/" + DATABASE
                + "?sslMode=DISABLED&allowPublicKeyRetrieval=true&useLocalSessionState=true&connectTimeout=3000", USER, PASSWORD);
    }

    /** Starts the server on its data directory and returns once it answers a ping. */
    public void start() throws IOException, InterruptedException {
        start(List.of());
    }

    /**
     * Starts the server on its data directory and returns once it answers a ping.
     *
     * @param onceOptions options for this start only (such as bootstrapping a new Galera cluster)
     */
    public void start(List<String> onceOptions) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(binary("mariadbd").toString(), "--no-defaults",
                "--datadir=" + dir.resolve("data"), "--port=" + port, "--bind-address=127.0.0.1",
                "--socket=" + socket(), "--pid-file=" + dir.resolve("mariadbd.pid"), "--user=root", "--skip-name-resolve",
                "--log-error=" + dir.resolve("error.log")));
        command.addAll(SMALL);
        command.addAll(options);
        command.addAll(onceOptions);
        launch(command, "answer a ping", this::ping);
    }

    private boolean ping() throws IOException, InterruptedException {
        Process ping = new ProcessBuilder(binary("mariadb-admin").toString(), "--no-defaults", "--socket=" + socket(),
                "--user=root", "--connect-timeout=2", "ping").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        return ping.waitFor(10, TimeUnit.SECONDS) && ping.exitValue() == 0;
    }

    /**
     * Runs SQL as root through the server's socket.
     *
     * @return what the client printed (tab-separated rows, no column names)
     */
    public String query(String sql) throws IOException, InterruptedException {
        Path output = dir.resolve("query.out");
        Files.deleteIfExists(output);
        run(dir, "query", List.of(binary("mariadb").toString(), "--no-defaults", "--socket=" + socket(), "--user=root",
                "--batch", "--skip-column-names", "-e", sql));
        return Files.readString(dir.resolve("query.out"), StandardCharsets.UTF_8).trim();
    }

    // a unix socket path is limited to about 100 bytes: keep it short and in the test's own directory
    private Path socket() {
        return dir.resolve("sock");
    }
}
