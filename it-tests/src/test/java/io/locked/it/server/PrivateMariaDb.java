package io.locked.it.server;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A MariaDB server of the test's own, on a data directory and a free port of its own, so that it
 * can be stopped and started while workers hold locks on it; the shared server of the other builds
 * is never touched. A Galera node is one of these with its cluster's options ({@link GaleraCluster}). Started as a child process of the test JVM (so the test holds its process and
 * can signal it), it is killed by {@link #close()} and, should the test JVM end first, by a
 * shutdown hook.
 */
public final class PrivateMariaDb implements AutoCloseable {
    private static final String DATABASE = "locked_faults";
    private static final String USER = "locked_faults";
    private static final String PASSWORD = "locked-faults";
    private static final List<String> SMALL = List.of("--innodb-buffer-pool-size=16M", "--innodb-log-file-size=8M");
    private final Path dir;
    private final int port;
    private final List<String> options;
    private final Thread killOnExit;
    private Process server;

    private PrivateMariaDb(Path dir, int port, List<String> options) {
        this.dir = dir;
        this.port = port;
        this.options = List.copyOf(options);
        this.killOnExit = new Thread(this::kill, "private-mariadb-kill");
        Runtime.getRuntime().addShutdownHook(killOnExit);
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
        server = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.out").toFile())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!ping()) {
            if (!server.isAlive()) {
                unavailable("mariadbd exited with " + server.exitValue() + " on start:\n" + errorLogTail());
            }
            if (System.nanoTime() - deadline > 0) {
                unavailable("mariadbd did not answer a ping within 60s:\n" + errorLogTail());
            }
            Thread.sleep(50);
        }
    }

    /**
     * Stops the server and waits until it is gone.
     *
     * @param crash SIGKILL (no shutdown, as in a crash) rather than SIGTERM (a clean shutdown)
     */
    public void stop(boolean crash) throws InterruptedException {
        if (crash) {
            server.destroyForcibly();
        } else {
            server.destroy();
        }
        if (!server.waitFor(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("mariadbd did not stop within 60s of SIG" + (crash ? "KILL" : "TERM"));
        }
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

    private static void run(Path dir, String step, List<String> command) throws IOException, InterruptedException {
        Path output = dir.resolve(step + ".out");
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile())).start();
        if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            unavailable(step + " failed: " + String.join(" ", command) + "\n" + Files.readString(output, StandardCharsets.UTF_8));
        }
    }

    // a unix socket path is limited to about 100 bytes: keep it short and in the test's own directory
    private Path socket() {
        return dir.resolve("sock");
    }

    private String errorLogTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("error.log"), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException unreadable) {
            return "(no error log: " + unreadable + ")";
        }
    }

    static Path binary(String name) {
        List<Path> places = new ArrayList<>();
        for (String entry : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!entry.isEmpty()) {
                places.add(Path.of(entry));
            }
        }
        places.addAll(List.of(Path.of("/usr/sbin"), Path.of("/usr/local/sbin"), Path.of("/usr/bin")));
        return places.stream().map(place -> place.resolve(name)).filter(Files::isExecutable).findFirst().orElse(null);
    }

    public static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0)) {
            return probe.getLocalPort();
        }
    }

    static void unavailable(String reason) {
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            throw new AssertionError("private MariaDB server: " + reason + " (CI=true: a server that cannot be started fails the build)");
        }
        Assumptions.abort("private MariaDB server: " + reason);
    }

    private void kill() {
        if (server != null && server.isAlive()) {
            server.destroyForcibly();
            try {
                server.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        kill();
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }
}
