package io.locked.jpa.testing.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of the test's own, from the machine's PostgreSQL binaries (Debian's
 * {@code postgresql} package puts them in {@code /usr/lib/postgresql/<version>/bin}; the highest
 * version there is taken, or the folder that {@code -Dlocked.postgresql.bin} names): a data directory
 * of its own, a free port on 127.0.0.1 (TCP only, no unix socket), trust authentication for the
 * superuser {@value #USER}, and the settings the test gives, kept across restarts.
 *
 * <p>A test can stop it cleanly, crash it ({@link #crash()}: every process of the server killed at
 * one instant, so that what it had not written out is lost, as when the kernel kills a server) and
 * start it again on the same data ({@link #restart()}, which runs PostgreSQL's crash recovery), on
 * the same port, so that a pool's URL stays right.
 *
 * <p>PostgreSQL refuses to run as root: where the test JVM is root (as on CI), initdb and the server
 * run as the OS user {@value #USER} ({@code setpriv}), which owns the data directory. Where that user
 * cannot reach the directory given (a folder above it closed to others), the data goes to a directory
 * under {@code java.io.tmpdir} instead, deleted by {@link #close()}.
 */
public final class PrivatePostgreSql extends ServerProcess {
    /** The superuser, and the OS user the server runs as where the test runs as root. */
    public static final String USER = "postgres";
    private static final String DATABASE = "postgres";
    private static final long STOP_SECONDS = 60;
    private final Path data;
    private final boolean dataInTemp;
    private final int port;
    private final List<String> command;
    /** The WAL writer's process while {@link #pauseWalWriter()} holds it, else 0. */
    private long pausedWalWriter;
    /** The WAL senders {@link #pauseWalSenders()} froze, or the receiver of {@link #pauseWalReceiver()}. */
    private final List<Long> pausedReplication = new ArrayList<>();

    private PrivatePostgreSql(Path dir, Path data, boolean dataInTemp, int port, List<String> command) {
        super(dir, "postgres");
        this.data = data;
        this.dataInTemp = dataInTemp;
        this.port = port;
        this.command = command;
    }

    /**
     * Initializes a data directory under {@code dir}, starts the server on it and waits until it
     * accepts connections.
     *
     * @param settings server settings ({@code name -> value}, as {@code -c name=value}), for every
     *                 start of this server
     * @throws AssertionError under CI=true if the server cannot be set up or started (elsewhere the
     *                        test is aborted with the reason)
     */
    public static PrivatePostgreSql start(Path dir, Map<String, String> settings) throws IOException, InterruptedException {
        Path bin = binaries();
        List<String> asServerUser = asServerUser();
        Path data = dataDirectory(dir, asServerUser);
        List<String> initdb = new ArrayList<>(asServerUser);
        initdb.addAll(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", USER, "-A", "trust",
                "-E", "UTF8", "--locale=C", "--no-sync"));
        // a crash here is the server's, never the machine's: what the server wrote reaches the disk
        // through the kernel, so initdb need not wait for it
        run(dir, "initdb", initdb);
        return startOn(dir, bin, asServerUser, data, settings);
    }

    /**
     * Copies this running server's data under {@code dir} ({@code pg_basebackup}, which also writes
     * the settings that make the copy a standby streaming from this server: {@code -R}) and starts
     * the copy as a read-only hot standby on a port of its own. It streams once it accepts
     * connections; a test that needs it streaming waits for that ({@code pg_stat_replication} here).
     * initdb's trust authentication lets 127.0.0.1 replicate.
     *
     * @throws AssertionError under CI=true if the standby cannot be set up or started
     */
    public PrivatePostgreSql startStandby(Path dir) throws IOException, InterruptedException {
        Path bin = binaries();
        List<String> asServerUser = asServerUser();
        Files.createDirectories(dir);
        Path data = dataDirectory(dir, asServerUser);
        List<String> copy = new ArrayList<>(asServerUser);
        copy.addAll(List.of(bin.resolve("pg_basebackup").toString(), "-D", data.toString(), "-R", "-h", "127.0.0.1",
                "-p", Integer.toString(port), "-U", USER, "-X", "stream", "--no-sync"));
        run(dir, "pg_basebackup", copy);
        return startOn(dir, bin, asServerUser, data, Map.of());
    }

    /** @return the port it listens on, for a multi-host URL */
    public int port() {
        return port;
    }

    private static PrivatePostgreSql startOn(Path dir, Path bin, List<String> asServerUser, Path data,
                                             Map<String, String> settings) throws IOException, InterruptedException {
        boolean dataInTemp = !data.startsWith(dir);
        int port = freePort();
        List<String> command = new ArrayList<>(asServerUser);
        command.addAll(List.of(bin.resolve("postgres").toString(), "-D", data.toString(), "-p", Integer.toString(port),
                "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="));
        settings.forEach((name, value) -> command.addAll(List.of("-c", name + "=" + value)));
        PrivatePostgreSql server = new PrivatePostgreSql(dir, data, dataInTemp, port, List.copyOf(command));
        try {
            server.launch();
            return server;
        } catch (IOException | InterruptedException | RuntimeException | Error failure) {
            server.close();
            throw failure;
        }
    }

    private void launch() throws IOException, InterruptedException {
        launch(command, "accept connections", this::accepting);
    }

    /** @return the JDBC URL of its database */
    public String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE + "?connectTimeout=3";
    }

    /** @return the superuser, who needs no password */
    public String user() {
        return USER;
    }

    /** @return the empty password (trust authentication) */
    public String password() {
        return "";
    }

    /** @return a plain JDBC connection to its database, outside any pool */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), USER, "");
    }

    /**
     * Kills every process of the server at one instant, as a crash would: the postmaster is frozen
     * first, so that it neither notices its children go nor starts others, then each process gets
     * SIGKILL. What sat in the server's memory (write-ahead log it had not written yet, pages) is
     * lost; what it had written stays, as the kernel has it. Returns once all of them are gone.
     */
    public void crash() throws IOException, InterruptedException {
        Process postmaster = process();
        signal("STOP", postmaster.pid());
        List<ProcessHandle> children = postmaster.descendants().toList();
        children.forEach(ProcessHandle::destroyForcibly);
        postmaster.destroyForcibly();
        if (!postmaster.waitFor(STOP_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the postmaster did not die within " + STOP_SECONDS + "s of SIGKILL");
        }
        for (ProcessHandle child : children) {
            awaitEnd(child);
        }
        pausedWalWriter = 0;
        pausedReplication.clear();
    }

    /**
     * Starts the server again on its data directory and port, after {@link #crash()} or a stop, and
     * returns once it accepts connections: after a crash, once its recovery replayed the log.
     */
    public void restart() throws IOException, InterruptedException {
        launch();
    }

    /**
     * @param crash as {@link #crash()}; else a fast shutdown (SIGINT: sessions are ended, the data
     *              written out), which does not wait for clients to disconnect
     */
    @Override
    public void stop(boolean crash) throws InterruptedException {
        try {
            if (crash) {
                crash();
                return;
            }
            resumeWalWriter();
            resumeWalSenders(); // a frozen sender would hold the shutdown up
            signal("INT", process().pid());
        } catch (IOException e) {
            throw new IllegalStateException("cannot signal the server", e);
        }
        if (!process().waitFor(STOP_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException("postgres did not stop within " + STOP_SECONDS + "s of SIGINT");
        }
    }

    /**
     * Freezes the WAL writer (SIGSTOP) until {@link #resumeWalWriter()} or a crash. A commit that does
     * not wait for the disk ({@code synchronous_commit = off}) then stays in the server's memory, where
     * a crash loses it, until a commit that waits writes out the log before it; without the pause the
     * WAL writer would write it out within {@code wal_writer_delay} (10 s at most), perhaps between
     * the commit and the crash.
     */
    public void pauseWalWriter() throws SQLException, IOException, InterruptedException {
        if (pausedWalWriter != 0) {
            return;
        }
        List<Long> writer = pidsOf("walwriter");
        if (writer.size() != 1) {
            throw new IllegalStateException("not one walwriter in pg_stat_activity: " + writer);
        }
        signal("STOP", writer.get(0));
        pausedWalWriter = writer.get(0);
    }

    /**
     * Freezes (SIGSTOP) the processes that stream this primary's log to its standbys, until it
     * crashes or {@link #resumeWalSenders()}: what it commits from then on reaches no standby, as in a
     * lag at the moment of a failover. A commit that waits for a synchronous standby waits meanwhile.
     *
     * @throws IllegalStateException if no standby streams from it
     */
    public void pauseWalSenders() throws SQLException, IOException, InterruptedException {
        List<Long> senders = pidsOf("walsender");
        if (senders.isEmpty()) {
            throw new IllegalStateException("no standby streams from the server on port " + port);
        }
        for (long sender : senders) {
            signal("STOP", sender);
            pausedReplication.add(sender);
        }
    }

    /** Lets the WAL senders that {@link #pauseWalSenders()} froze run again. */
    public void resumeWalSenders() throws IOException, InterruptedException {
        for (long sender : pausedReplication) {
            signal("CONT", sender);
        }
        pausedReplication.clear();
    }

    /**
     * Freezes (SIGSTOP) this standby's WAL receiver until {@link #resumeWalReceiver()}: it neither
     * writes what its primary sends nor confirms it, so a commit on the primary that waits for it
     * waits meanwhile. (Freezing the primary's sender instead would freeze its readers of
     * {@code pg_stat_activity} too, should it stop in the middle of updating its own entry there.)
     */
    public void pauseWalReceiver() throws SQLException, IOException, InterruptedException {
        List<Long> receiver = pidsOf("walreceiver");
        if (receiver.size() != 1) {
            throw new IllegalStateException("not one walreceiver on the standby on port " + port + ": " + receiver);
        }
        signal("STOP", receiver.get(0));
        pausedReplication.add(receiver.get(0));
    }

    /** Lets the WAL receiver that {@link #pauseWalReceiver()} froze run again. */
    public void resumeWalReceiver() throws IOException, InterruptedException {
        resumeWalSenders();
    }

    /**
     * Promotes this standby to a primary ({@code pg_promote}) and returns once it takes writes.
     *
     * @throws IllegalStateException if the promotion did not complete within a minute
     */
    public void promote() throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
             ResultSet promoted = statement.executeQuery("SELECT pg_promote(true, 60)")) {
            if (!promoted.next() || !promoted.getBoolean(1)) {
                throw new IllegalStateException("the standby on port " + port + " was not promoted within 60 s");
            }
        }
    }

    private List<Long> pidsOf(String backendType) throws SQLException {
        List<Long> pids = new ArrayList<>();
        try (Connection connection = connect();
             PreparedStatement find = connection.prepareStatement("SELECT pid FROM pg_stat_activity WHERE backend_type = ?")) {
            find.setString(1, backendType);
            try (ResultSet rows = find.executeQuery()) {
                while (rows.next()) {
                    pids.add(rows.getLong(1));
                }
            }
        }
        return pids;
    }

    /** Lets a WAL writer that {@link #pauseWalWriter()} froze run again. */
    public void resumeWalWriter() throws IOException, InterruptedException {
        if (pausedWalWriter != 0) {
            signal("CONT", pausedWalWriter);
            pausedWalWriter = 0;
        }
    }

    /** Kills the server (if running) and deletes a data directory it kept outside its own directory. */
    @Override
    public void close() {
        Process postmaster = process();
        if (postmaster != null && postmaster.isAlive()) {
            try {
                crash();
            } catch (IOException | RuntimeException e) {
                // the close below kills the postmaster; its children end on its death
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        super.close();
        if (dataInTemp) {
            ServerProcess.deleteTree(data);
        }
    }

    /** The server logs to its output. */
    @Override
    protected Path errorLog() {
        return dir.resolve("server.out");
    }

    private boolean accepting() {
        try (Connection ignored = connect()) {
            return true;
        } catch (SQLException notYet) {
            // not listening yet, or "the database system is starting up" while it recovers
            return false;
        }
    }

    private static void awaitEnd(ProcessHandle process) throws InterruptedException {
        try {
            process.onExit().get(STOP_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("server process " + process.pid() + " did not end after SIGKILL", e);
        }
    }

    private static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
        String output = new String(kill.getInputStream().readAllBytes());
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + pid + " failed: " + output);
        }
    }

    /** @return the folder with initdb and postgres */
    private static Path binaries() throws IOException {
        String named = System.getProperty("locked.postgresql.bin", "");
        if (!named.isEmpty()) {
            Path bin = Path.of(named);
            if (!Files.isExecutable(bin.resolve("postgres"))) {
                unavailable("-Dlocked.postgresql.bin=" + named + " has no postgres");
            }
            return bin;
        }
        Path versions = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(versions)) {
            try (Stream<Path> each = Files.list(versions)) {
                List<Path> found = each.filter(version -> version.getFileName().toString().matches("\\d+"))
                        .sorted(Comparator.comparingInt((Path version) -> Integer.parseInt(version.getFileName().toString()))
                                .reversed())
                        .map(version -> version.resolve("bin"))
                        .filter(bin -> Files.isExecutable(bin.resolve("initdb")) && Files.isExecutable(bin.resolve("postgres")))
                        .toList();
                if (!found.isEmpty()) {
                    return found.get(0);
                }
            }
        }
        Path initdb = binary("initdb");
        if (initdb == null || !Files.isExecutable(initdb.resolveSibling("postgres"))) {
            unavailable("no PostgreSQL server binaries in /usr/lib/postgresql/<version>/bin nor on PATH"
                    + " (Debian: apt-get install postgresql; or -Dlocked.postgresql.bin=<folder>)");
        }
        return initdb.getParent();
    }

    /** @return the prefix that runs a command as the server's OS user: none unless the test runs as root */
    private static List<String> asServerUser() {
        if (!"root".equals(ProcessHandle.current().info().user().orElse(""))) {
            return List.of();
        }
        Path setpriv = binary("setpriv");
        if (setpriv == null) {
            unavailable("the tests run as root, which PostgreSQL refuses, and setpriv (util-linux) is missing");
        }
        return List.of(setpriv.toString(), "--reuid=" + USER, "--regid=" + USER, "--init-groups");
    }

    private static void setOwner(Path path) throws IOException {
        UserPrincipal owner;
        try {
            owner = path.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(USER);
        } catch (IOException noSuchUser) {
            unavailable("the tests run as root, which PostgreSQL refuses, and there is no OS user " + USER
                    + " to run it as (Debian's postgresql package creates it)");
            throw noSuchUser;
        }
        Files.setOwner(path, owner);
    }

    /**
     * @return an empty data directory that the server's OS user owns, closed to others (as PostgreSQL
     * wants it): under {@code dir}, or under {@code java.io.tmpdir} where that user cannot reach {@code dir}
     */
    private static Path dataDirectory(Path dir, List<String> asServerUser) throws IOException, InterruptedException {
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------"));
        if (!asServerUser.isEmpty()) {
            setOwner(data);
            if (!serverUserCanWrite(dir, asServerUser, data)) {
                ServerProcess.deleteTree(data);
                data = Files.createTempDirectory("locked-postgresql-");
                setOwner(data);
            }
        }
        return data;
    }

    private static boolean serverUserCanWrite(Path dir, List<String> asServerUser, Path data)
            throws IOException, InterruptedException {
        List<String> probe = new ArrayList<>(asServerUser);
        probe.addAll(List.of("test", "-w", data.toString()));
        Process test = new ProcessBuilder(probe).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("access.out").toFile())).start();
        return test.waitFor(30, TimeUnit.SECONDS) && test.exitValue() == 0;
    }
}
