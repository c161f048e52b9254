package io.locked.jpa.internal.dialect;

import io.locked.jpa.StandbyCommits;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.transaction.LockTransaction;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Set;
import java.util.logging.Logger;

/**
 * Where a PostgreSQL lock store stands in its replication, read once at start-up: a standby in
 * recovery is refused (it takes no write, so every lock would fail as "unavailable", and a
 * failover would not move the store to the new primary), a primary is described in one log line,
 * saying whether a failover to its standby keeps what was committed.
 *
 * <p>Any user can count the rows of {@code pg_stat_replication}; their {@code sync_state} is null
 * for a user without {@code pg_read_all_stats}, and the line says so rather than guess.
 *
 * @param inRecovery     {@code pg_is_in_recovery()}: a standby
 * @param synchronousCommit {@code synchronous_commit} as the store's sessions start with it
 * @param standbyNames   {@code synchronous_standby_names}, empty when no standby is synchronous
 * @param standbys       the standbys streaming from this server
 * @param synchronous    those of them a commit waits for ({@code sync} or {@code quorum})
 * @param statesVisible  whether this user can see the standbys' {@code sync_state}
 */
public record PostgreSqlTopology(boolean inRecovery, String synchronousCommit, String standbyNames, int standbys,
                                 int synchronous, boolean statesVisible) {
    private static final Logger LOG = Logger.getLogger(PostgreSqlTopology.class.getName());
    private static final String READ = "SELECT pg_is_in_recovery(), current_setting('synchronous_commit'),"
            + " current_setting('synchronous_standby_names'), (SELECT count(*) FROM pg_stat_replication),"
            + " (SELECT count(*) FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum')),"
            + " (SELECT count(sync_state) FROM pg_stat_replication)";
    static final String REFUSAL = "The lock store's database URL reaches a PostgreSQL standby in recovery (a read-only"
            + " hot standby, pg_is_in_recovery() = true): locks are writes and need the primary, and a store on a standby"
            + " would not follow a failover. Point the lock's persistence unit at the primary, or, with pgJDBC, list the"
            + " servers in a multi-host URL with targetServerType=primary"
            + " (jdbc:postgresql://host1:5432,host2:5432/db?targetServerType=primary), which connects to the one that"
            + " takes writes";
    /** The settings under which a commit waits for the synchronous standbys (local and off do not). */
    private static final Set<String> WAITS_FOR_STANDBY = Set.of("on", "remote_write", "remote_apply");

    /**
     * Refuses a standby and logs what the primary has; a database that does not answer is not
     * refused here: the first lock fails clearly.
     *
     * @param standbyWait the {@code synchronous_commit} of the lock's durable writes, or null for the session's
     * @throws IllegalStateException if the connections reach a standby
     */
    static void check(LockConnections connections, String standbyWait) {
        PostgreSqlTopology topology;
        try {
            topology = LockTransaction.autocommit(connections, CallBounds.brief(), PostgreSqlTopology::read);
        } catch (SQLException unreachable) {
            return;
        }
        if (topology.inRecovery) {
            throw new IllegalStateException(REFUSAL);
        }
        if (standbyWait != null && topology.standbyNames.isEmpty()) {
            LOG.warning(() -> StandbyCommits.KEY + "=" + standbyWait + " waits for no standby here:"
                    + " the server names no synchronous standby (synchronous_standby_names is empty), so the lock's"
                    + " commits wait for its own disk only. " + topology.describe());
            return;
        }
        LOG.info(() -> topology.describe(standbyWait));
    }

    /** @return what the server says of its place in replication, read on that connection */
    public static PostgreSqlTopology read(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(READ)) {
            row.next();
            int standbys = row.getInt(4);
            return new PostgreSqlTopology(row.getBoolean(1), row.getString(2), row.getString(3).trim(), standbys,
                    row.getInt(5), standbys == 0 || row.getInt(6) == standbys);
        }
    }

    /** @return one line for the log, in a user's words */
    public String describe() {
        return describe(null);
    }

    /**
     * @param lockCommits the {@code synchronous_commit} of the lock's durable writes, or null for the session's
     * @return one line for the log, in a user's words
     */
    String describe(String lockCommits) {
        String effective = lockCommits == null ? synchronousCommit : lockCommits;
        String settings = " (synchronous_commit=" + synchronousCommit
                + (lockCommits == null ? "" : ", " + lockCommits + " for the lock's durable writes")
                + (standbyNames.isEmpty() ? "" : ", synchronous_standby_names='" + standbyNames + "'") + ")";
        boolean commitsWait = !standbyNames.isEmpty() && WAITS_FOR_STANDBY.contains(effective.toLowerCase(Locale.ROOT));
        if (standbys == 0) {
            return "PostgreSQL primary without standbys" + settings + (commitsWait
                    ? ": no synchronous standby is connected, so every commit waits until one is" : "");
        }
        String count = standbys + (standbys == 1 ? " standby" : " standbys");
        if (!statesVisible) {
            return "PostgreSQL primary with " + count + settings + "; whether they are synchronous is hidden from this"
                    + " user (it needs pg_read_all_stats): with an asynchronous one a failover may lose the last"
                    + " committed leases and tokens (docs/clusters.md)";
        }
        if (synchronous == 0 && commitsWait) {
            return "PostgreSQL primary with " + count + settings + ", none of them named by synchronous_standby_names:"
                    + " every commit that waits for a standby waits until one it names connects";
        }
        if (synchronous == 0) {
            return "PostgreSQL primary with " + (standbys == 1 ? "1 asynchronous standby" : standbys + " asynchronous standbys")
                    + settings + ": a failover may lose the last committed leases and tokens (docs/clusters.md)";
        }
        String described = "PostgreSQL primary with " + (synchronous == standbys
                ? (standbys == 1 ? "1 synchronous standby" : standbys + " synchronous standbys")
                : count + ", " + synchronous + " of them synchronous") + settings;
        if (!commitsWait) {
            return described + ": commits do not wait for them under synchronous_commit=" + effective
                    + ", so a failover may lose the last committed leases and tokens (docs/clusters.md)";
        }
        return described + ": committed leases and tokens survive a failover to a synchronous standby, apart from what"
                + " Locked commits without waiting (docs/clusters.md)";
    }
}
