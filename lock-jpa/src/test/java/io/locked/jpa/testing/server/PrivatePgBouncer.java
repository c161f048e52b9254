package io.locked.jpa.testing.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * A PgBouncer of the test's own (Debian's {@code pgbouncer} package, {@code /usr/sbin/pgbouncer};
 * {@code .ci/run} installs it where it is missing) in front of a PostgreSQL server: its own config
 * in its directory, a free port on 127.0.0.1 (TCP only), trust authentication, one database entry
 * that names the server, the user and the database, the pooling mode and the number of server
 * connections per pool that the test gives. Its log goes to {@code server.out}.
 *
 * <p>PgBouncer refuses to run as root: where the test JVM is root (as on CI) it runs as the OS user
 * {@value PrivatePostgreSql#USER} ({@code setpriv}), which must be able to read its directory.
 */
public final class PrivatePgBouncer extends ServerProcess {
    private final int port;
    private final String database;

    private PrivatePgBouncer(Path dir, int port, String database) {
        super(dir, "pgbouncer");
        this.port = port;
        this.database = database;
    }

    /**
     * Writes the config and starts PgBouncer, returning once it accepts connections.
     *
     * @param poolMode      {@code session} or {@code transaction}
     * @param serverConnections the pool's size: server connections per user and database
     * @throws AssertionError under CI=true if it cannot start (elsewhere the test is aborted)
     */
    public static PrivatePgBouncer start(Path dir, String host, int serverPort, String database, String user,
                                         String poolMode, int serverConnections) throws IOException, InterruptedException {
        Path program = binary("pgbouncer");
        if (program == null) {
            unavailable("no pgbouncer on PATH nor in /usr/sbin (Debian: apt-get install pgbouncer; .ci/run installs it)");
        }
        Files.createDirectories(dir);
        int port = freePort();
        Path users = dir.resolve("users.txt");
        Files.writeString(users, "\"" + user + "\" \"\"\n");
        Path config = dir.resolve("pgbouncer.ini");
        Files.writeString(config, String.join("\n",
                "[databases]",
                database + " = host=" + host + " port=" + serverPort + " dbname=" + database + " user=" + user,
                "[pgbouncer]",
                "listen_addr = 127.0.0.1",
                "listen_port = " + port,
                "unix_socket_dir =",
                "auth_type = trust",
                "auth_file = " + users,
                "pool_mode = " + poolMode,
                "default_pool_size = " + serverConnections,
                "max_client_conn = 200",
                ""));
        for (Path file : List.of(dir, users, config)) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(
                    Files.isDirectory(file) ? "rwxr-xr-x" : "rw-r--r--"));
        }
        List<String> command = new ArrayList<>();
        if ("root".equals(ProcessHandle.current().info().user().orElse(""))) {
            Path setpriv = binary("setpriv");
            if (setpriv == null) {
                unavailable("the tests run as root, which PgBouncer refuses, and setpriv (util-linux) is missing");
            }
            command.addAll(List.of(setpriv.toString(), "--reuid=" + PrivatePostgreSql.USER,
                    "--regid=" + PrivatePostgreSql.USER, "--init-groups"));
        }
        command.addAll(List.of(program.toString(), config.toString()));
        PrivatePgBouncer bouncer = new PrivatePgBouncer(dir, port, database);
        bouncer.launch(command, "listen on 127.0.0.1:" + port, () -> listens(port));
        return bouncer;
    }

    private static boolean listens(int port) {
        try (Socket probe = new Socket()) {
            probe.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException notYet) {
            return false;
        }
    }

    /** PgBouncer logs to its output. */
    @Override
    protected Path errorLog() {
        return dir.resolve("server.out");
    }

    /** @return the port it listens on */
    public int port() {
        return port;
    }

    /** @return a pgJDBC URL through it, with the URL parameters given (such as {@code prepareThreshold=0}) */
    public String url(String parameters) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?connectTimeout=3"
                + (parameters.isEmpty() ? "" : "&" + parameters);
    }
}
