package io.locked.jpa.internal.dialect;

import io.locked.api.LockMode;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.transaction.LockTransaction;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What Locked must know when its MariaDB is a node of a Galera cluster, found at start-up
 * ({@code wsrep_on}).
 *
 * <p>Galera replicates a transaction's writes when it commits, and certifies them against the
 * writes other nodes committed meanwhile: of two conflicting transactions the later one is rolled
 * back. Row locks are not replicated: each node keeps its own.
 * <ul>
 *   <li>An optimistic lease is a committed write, so certification orders two takes on different
 *   nodes, and the loser gets a deadlock error, which is "busy". Unless the node retries an
 *   autocommit statement that failed certification ({@code wsrep_retry_autocommit}, 1 by default)
 *   after it already sent the client the rows of its {@code RETURNING}: the client was told it took
 *   the lease that the retry then found held. The take therefore runs with that retry off.</li>
 *   <li>A pessimistic hold is a row lock kept by one node, and its write is certified only at
 *   release: JVMs that reach different nodes would all hold the key at once. Refused unless the
 *   user says every JVM's lock statements reach one node ({@code locked.galera.single-writer});
 *   then each pessimistic take names its node, and a JVM never holds locks on two nodes at once.</li>
 * </ul>
 */
public final class GaleraNode {
    static final String SINGLE_WRITER = "locked.galera.single-writer";
    private final boolean singleWriter;
    private final String clusterSize;
    private final Map<String, Integer> openHoldsByNode = new HashMap<>();

    private GaleraNode(boolean singleWriter, String clusterSize) {
        this.singleWriter = singleWriter;
        this.clusterSize = clusterSize;
    }

    /**
     * @param bounds the start-up's, or the lock call's that asks because the database was down at start-up
     * @return the node the connections reach, or null when their server is not a Galera node
     * @throws IllegalStateException if the database cannot be asked within the bounds
     */
    public static GaleraNode detect(LockConnections connections, boolean singleWriter, CallBounds bounds) {
        try {
            return LockTransaction.autocommit(connections, bounds, connection -> {
                try (Statement statement = connection.createStatement()) {
                    try (ResultSet wsrep = statement.executeQuery("SHOW GLOBAL VARIABLES LIKE 'wsrep_on'")) {
                        // servers built without Galera do not have the variable at all
                        if (!wsrep.next() || !"ON".equalsIgnoreCase(wsrep.getString(2))) {
                            return null;
                        }
                    }
                    try (ResultSet size = statement.executeQuery("SHOW GLOBAL STATUS LIKE 'wsrep_cluster_size'")) {
                        return new GaleraNode(singleWriter, size.next() ? size.getString(2) : "?");
                    }
                }
            });
        } catch (SQLException unreadable) {
            throw new IllegalStateException("Cannot tell whether the MariaDB server is a Galera node (" + unreadable + ")",
                    unreadable);
        }
    }

    public Optional<String> refusal(LockMode mode) {
        if (mode != LockMode.PESSIMISTIC || singleWriter) {
            return Optional.empty();
        }
        // refused on a cluster of one node too: nodes join a running cluster without the application knowing
        return Optional.of("the database is a node of a MariaDB Galera cluster (wsrep_on=ON, " + clusterSize + " nodes at"
                + " start-up), and each Galera node keeps its own row locks: JVMs whose lock statements reach different"
                + " nodes would hold the same key at once. Use"
                + " LockMode.OPTIMISTIC, whose leases Galera certifies across nodes; or route every JVM's lock statements"
                + " to one and the same node (a single-writer proxy, or one node's address) and set "
                + SINGLE_WRITER + "=true (JpaLockRepository.builder(...).galeraSingleWriter(true))");
    }

    /**
     * Counts a pessimistic hold taken on a node.
     *
     * @param node {@code host:port} of the node that granted it
     * @throws IllegalStateException if this JVM holds locks on another node right now: its lock
     *                               statements are not going to a single writer
     */
    public synchronized void holdOn(String node) {
        for (Map.Entry<String, Integer> open : openHoldsByNode.entrySet()) {
            if (!open.getKey().equals(node) && open.getValue() > 0) {
                throw new IllegalStateException("Pessimistic lock refused: " + SINGLE_WRITER + " is set, but this JVM's"
                        + " lock statements reached Galera node " + node + " while it holds locks on node " + open.getKey()
                        + ". Route every lock connection to one node (a single-writer proxy), or use LockMode.OPTIMISTIC");
            }
        }
        openHoldsByNode.merge(node, 1, Integer::sum);
    }

    /** Counts a hold on that node as ended: released, or its session found dead. */
    public synchronized void ended(String node) {
        openHoldsByNode.computeIfPresent(node, (n, holds) -> holds > 1 ? holds - 1 : null);
    }
}
