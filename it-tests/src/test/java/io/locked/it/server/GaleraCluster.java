package io.locked.it.server;

import io.locked.jpa.testing.server.ServerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A MariaDB Galera cluster of three nodes on loopback, each a {@link PrivateMariaDb} of its own with
 * its own SQL, group communication, IST and SST ports. The first node bootstraps the cluster; the
 * others join it, on an empty data directory, by an rsync state transfer. Needs Debian's
 * {@code galera-4} and {@code rsync} ({@code .ci/run} installs them); under CI=true a cluster that
 * cannot start fails the test.
 */
public final class GaleraCluster implements AutoCloseable {
    private static final Path PROVIDER = Path.of("/usr/lib/galera/libgalera_smm.so");
    private static final long SYNC_SECONDS = 120;
    private final List<PrivateMariaDb> nodes;
    private final List<Path> nodeDirs = new ArrayList<>();

    private GaleraCluster(List<PrivateMariaDb> nodes) {
        this.nodes = nodes;
    }

    /** Installs and starts the nodes under {@code dir}, and creates the test database and user. */
    public static GaleraCluster start(Path dir, int size) throws IOException, InterruptedException {
        if (!Files.isRegularFile(PROVIDER) || ServerProcess.binary("rsync") == null) {
            ServerProcess.unavailable("Galera needs " + PROVIDER + " and rsync (Debian: apt-get install galera-4 rsync)");
        }
        List<int[]> ports = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            ports.add(new int[] {ServerProcess.freePort(), ServerProcess.freePort(), ServerProcess.freePort(),
                    ServerProcess.freePort()});
        }
        Files.createDirectories(dir);
        reachableByAll(dir);
        String members = ports.stream().map(p -> "127.0.0.1:" + p[1]).collect(Collectors.joining(","));
        List<PrivateMariaDb> nodes = new ArrayList<>();
        GaleraCluster cluster = new GaleraCluster(nodes);
        try {
            for (int i = 0; i < size; i++) {
                int[] p = ports.get(i);
                Path nodeDir = Files.createDirectories(dir.resolve("node" + (i + 1)));
                cluster.nodeDirs.add(nodeDir);
                List<String> options = List.of(
                        // Galera replicates row images and needs interleaved auto-increment locks
                        "--binlog-format=ROW", "--innodb-autoinc-lock-mode=2",
                        "--wsrep-on=ON", "--wsrep-provider=" + PROVIDER, "--wsrep-cluster-name=locked-test",
                        "--wsrep-cluster-address=gcomm://" + members, "--wsrep-node-name=node" + (i + 1),
                        "--wsrep-node-address=127.0.0.1", "--wsrep-node-incoming-address=127.0.0.1:" + p[0],
                        "--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:" + p[1]
                                + ";ist.recv_addr=127.0.0.1:" + p[2] + ";gcache.size=32M",
                        "--wsrep-sst-method=rsync", "--wsrep-sst-receive-address=127.0.0.1:" + p[3],
                        // certification conflicts in the error log, for the failures a test may have to explain
                        "--wsrep-log-conflicts=ON");
                // only the first node needs system tables of its own: the others receive the first's
                // data directory by their state transfer, as a node started again does (restart)
                nodes.add(i == 0 ? PrivateMariaDb.install(nodeDir, p[0], options)
                        : PrivateMariaDb.joiner(nodeDir, p[0], options));
                // the joiner's rsync daemon runs unprivileged and writes into the data directory
                writableByAll(nodeDir);
            }
            nodes.get(0).start(List.of("--wsrep-new-cluster"));
            // it answers before it is ready for SQL ("WSREP has not yet prepared node for application use")
            cluster.awaitSynced(0, 1);
            nodes.get(0).createDatabaseAndUser();
            for (int i = 1; i < size; i++) {
                nodes.get(i).start();
            }
            for (int i = 0; i < size; i++) {
                cluster.awaitSynced(i, size);
            }
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException | Error failure) {
            cluster.close();
            throw failure;
        }
    }

    /**
     * Starts node i again after it stopped or crashed, on an empty data directory, and waits until it
     * rejoined the cluster: a full state transfer from another node, as for a replaced node. (An
     * unprivileged rsync daemon could not take over the files the crashed server left.)
     */
    public void restart(int i) throws IOException, InterruptedException {
        Path data = nodeDirs.get(i).resolve("data");
        try (Stream<Path> paths = Files.walk(data)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                if (!path.equals(data)) {
                    Files.delete(path);
                }
            }
        }
        writableByAll(nodeDirs.get(i));
        nodes.get(i).start();
        awaitSynced(i, nodes.size());
    }

    /** @return node i (from 0) */
    public PrivateMariaDb node(int i) {
        return nodes.get(i);
    }

    /** @return how JDBC reaches node i's copy of the test database */
    public MariaDbEndpoint endpoint(int i) {
        return nodes.get(i).endpoint();
    }

    /**
     * @return one endpoint for every node, through Connector/J's load balancing: each connection
     *         moves to a node picked at random after every transaction and every statement outside one,
     *         as a JVM behind a proxy that spreads connections over the nodes would
     */
    public MariaDbEndpoint anyNode() {
        String hosts = nodes.stream().map(node -> "127.0.0.1:" + node.port()).collect(Collectors.joining(","));
        MariaDbEndpoint first = endpoint(0);
        return new MariaDbEndpoint(first.url().replaceFirst("^jdbc:mysql://[^/]+/", "jdbc:mysql:loadbalance://" + hosts + "/")
                + "&loadBalanceAutoCommitStatementThreshold=1", first.user(), first.password());
    }

    /** @return the number of nodes */
    public int size() {
        return nodes.size();
    }

    /**
     * Waits until node i is synced in a primary component of {@code members} nodes (after it started or
     * came back).
     */
    public void awaitSynced(int i, int members) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SYNC_SECONDS);
        String state = "";
        while (System.nanoTime() - deadline < 0) {
            state = nodes.get(i).query("SELECT GROUP_CONCAT(VARIABLE_VALUE ORDER BY VARIABLE_NAME) FROM information_schema.GLOBAL_STATUS"
                    + " WHERE VARIABLE_NAME IN ('WSREP_CLUSTER_SIZE', 'WSREP_CLUSTER_STATUS', 'WSREP_LOCAL_STATE_COMMENT')");
            if (state.equals(members + ",Primary,Synced")) {
                return;
            }
            Thread.sleep(100);
        }
        ServerProcess.unavailable("Galera node " + (i + 1) + " was not synced in a cluster of " + members + " within "
                + SYNC_SECONDS + "s (size, status, state: " + state + ")");
    }

    // the temporary directories of tests are private to their owner: let the rsync daemon through
    private static void reachableByAll(Path dir) throws IOException {
        for (Path path = dir.toAbsolutePath(); path != null && path.getNameCount() > 1; path = path.getParent()) {
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(path);
            if (permissions.add(PosixFilePermission.OTHERS_EXECUTE)) {
                Files.setPosixFilePermissions(path, permissions);
            }
        }
    }

    private static void writableByAll(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.toList()) {
                Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(
                        Files.isDirectory(path) ? "rwxrwxrwx" : "rw-rw-rw-"));
            }
        }
    }

    @Override
    public void close() {
        nodes.forEach(PrivateMariaDb::close);
    }
}
