package io.locked.jpa.testing.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A MariaDB server of the test's own (a data directory and a free port of its own) whose wall clock
 * the test steps forward and back while it runs, as an NTP daemon that steps rather than slews would:
 * libfaketime, preloaded into the server, reads the clock's offset from a file on every clock read
 * ({@code FAKETIME_TIMESTAMP_FILE}, {@code FAKETIME_NO_CACHE}), and {@link #stepClock} rewrites it.
 * Only the wall clock moves: the server's monotonic clock, which its lock waits and timeouts count
 * on, stays true ({@code FAKETIME_DONT_FAKE_MONOTONIC}). Its test database and user are made at start.
 *
 * <p>Debian's package {@code faketime} provides the library ({@code .ci/run} installs it). Under
 * CI=true a missing library or server fails the test; elsewhere the test is aborted with the reason.
 * {@link #close()} stops the server and removes libfaketime's shared memory of its process, which a
 * later process of the same id would otherwise trip over.
 */
public final class ClockedMariaDb extends ServerProcess {
    /** libfaketime from Debian's package faketime. */
    public static final Path FAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1");
    private static final String DATABASE = "locked_clocked";
    private static final String USER = "locked_clocked";
    private static final String PASSWORD = "locked-clocked";
    private final int port;
    private final Path offsetFile;
    private Duration offset = Duration.ZERO;

    private ClockedMariaDb(Path dir, int port) {
        super(dir, "mariadbd");
        this.port = port;
        this.offsetFile = dir.resolve("clock-offset");
    }

    /**
     * Creates a data directory under {@code dir}, starts the server on it with its clock on time and
     * creates the test's database and user.
     *
     * @param options further server options, such as {@code --sysdate-is-now}
     * @throws AssertionError under CI=true if libfaketime or the server is missing or the server
     *                        cannot be started (elsewhere the test is aborted with the reason)
     */
    public static ClockedMariaDb start(Path dir, List<String> options)
            throws IOException, InterruptedException, SQLException {
        if (!Files.isReadable(FAKETIME)) {
            unavailable("libfaketime is missing (" + FAKETIME + "): apt-get install faketime");
        }
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
        ClockedMariaDb server = new ClockedMariaDb(dir, freePort());
        try {
            server.writeOffset();
            List<String> command = new ArrayList<>(List.of(daemon.toString(), "--no-defaults",
                    "--datadir=" + dir.resolve("data"), "--port=" + server.port, "--bind-address=127.0.0.1",
                    "--socket=" + server.socket(), "--pid-file=" + dir.resolve("mariadbd.pid"), "--user=root",
                    "--skip-name-resolve", "--innodb-buffer-pool-size=16M", "--log-error=" + dir.resolve("error.log")));
            command.addAll(options);
            server.launch(command, Map.of("LD_PRELOAD", FAKETIME.toString(),
                    "FAKETIME_TIMESTAMP_FILE", server.offsetFile.toString(), "FAKETIME_NO_CACHE", "1",
                    "FAKETIME_DONT_FAKE_MONOTONIC", "1", "TZ", "UTC"), "answer a ping", () -> server.answers(client));
            run(dir, "create-user", List.of(client.toString(), "--no-defaults", "--socket=" + server.socket(),
                    "--user=root", "-e", "CREATE DATABASE " + DATABASE + "; CREATE USER '" + USER + "'@'127.0.0.1'"
                            + " IDENTIFIED BY '" + PASSWORD + "'; GRANT ALL PRIVILEGES ON " + DATABASE + ".* TO '"
                            + USER + "'@'127.0.0.1'; GRANT PROCESS, CONNECTION ADMIN ON *.* TO '" + USER + "'@'127.0.0.1';"));
            server.awaitClockAt(Duration.ZERO);
            return server;
        } catch (IOException | InterruptedException | SQLException | RuntimeException | Error failure) {
            server.close();
            throw failure;
        }
    }

    /**
     * Steps the server's wall clock by {@code step} (negative: back) from where it is, and returns once
     * the server reads its clock so.
     */
    public void stepClock(Duration step) throws IOException, SQLException, InterruptedException {
        offset = offset.plus(step);
        writeOffset();
        awaitClockAt(offset);
    }

    /** @return how far the server's clock is ahead of the machine's (negative: behind) */
    public Duration clockOffset() {
        return offset;
    }

    /** @return the JDBC URL of its test database, through mysql-connector-j as the tests reach MariaDB */
    public String url() {
        return "jdbc:mysql://127.0.0.1:" + port + "/" + DATABASE
                + "?sslMode=DISABLED&allowPublicKeyRetrieval=true&useLocalSessionState=true&connectTimeout=3000";
    }

    /** @return the test user (it may end other sessions: a forced release does) */
    public String user() {
        return USER;
    }

    /** @return the test user's password */
    public String password() {
        return PASSWORD;
    }

    /** @return a plain connection of the test user */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), USER, PASSWORD);
    }

    // libfaketime's relative form: "+2.5" or "-2.5", seconds
    private void writeOffset() throws IOException {
        String seconds = String.format(java.util.Locale.ROOT, "%+.6f", offset.toNanos() / 1e9);
        Path next = offsetFile.resolveSibling("clock-offset.next");
        Files.writeString(next, seconds + "\n", StandardCharsets.US_ASCII);
        // a rename, so that a clock read never finds the file half written
        Files.move(next, offsetFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Waits until the server's clock reads the machine's plus the offset: nearer to it than to any
     * other offset a half of the smallest step away, which tells a step of a second or more apart.
     */
    private void awaitClockAt(Duration expected) throws SQLException, InterruptedException {
        long toleranceMicros = 250_000;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            while (true) {
                Instant before = Instant.now();
                long server;
                try (ResultSet now = statement.executeQuery(
                        "SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))")) {
                    now.next();
                    server = now.getLong(1);
                }
                Instant after = Instant.now();
                long expectedMicros = expected.toNanos() / 1000;
                long low = ChronoUnit.MICROS.between(Instant.EPOCH, before) + expectedMicros - toleranceMicros;
                long high = ChronoUnit.MICROS.between(Instant.EPOCH, after) + expectedMicros + toleranceMicros;
                if (server >= low && server <= high) {
                    return;
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("the server's clock did not move to " + expected + " off the machine's"
                            + " within 30 s: it reads " + Instant.EPOCH.plus(server, ChronoUnit.MICROS) + " at " + after);
                }
                Thread.sleep(10);
            }
        }
    }

    @Override
    public void close() {
        long pid = process() == null ? -1 : process().pid();
        if (process() != null && process().isAlive()) {
            try {
                stop(false);
            } catch (InterruptedException | IllegalStateException notStopped) {
                // the kill in super.close() ends it
                if (notStopped instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        super.close();
        if (pid > 0) {
            // libfaketime leaves its shared memory behind; a later process of this id would fail to start
            try {
                Files.deleteIfExists(Path.of("/dev/shm/faketime_shm_" + pid));
                Files.deleteIfExists(Path.of("/dev/shm/sem.faketime_sem_" + pid));
            } catch (IOException leftOver) {
                // only a process of the same id minds it
            }
        }
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
