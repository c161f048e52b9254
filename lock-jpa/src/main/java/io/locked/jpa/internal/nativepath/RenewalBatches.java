package io.locked.jpa.internal.nativepath;

import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.RenewalBatch;
import io.locked.spi.Lease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Renewals of many leases on the native path: up to {@link RenewalBatch#SIZE} leases per autocommit
 * statement ({@link Dialect#renewalBatch()}), a lone lease by the one-lease renewal. Each lease is
 * told apart by its owner, the id of its own acquisition: the leases renewed are those whose owners
 * the statement (or the read after it) returns.
 */
final class RenewalBatches {
    private final Dialect database;
    private final StoreCalls store;
    private final NativeLeases leases;
    /** The batch's renewal, after the settings that make its commit wait for the standbys where asked. */
    private final SettingsThenUpdate renewal;

    RenewalBatches(Dialect database, StoreCalls store, NativeLeases leases) {
        this.database = database;
        this.store = store;
        this.leases = leases;
        this.renewal = SettingsThenUpdate.of(database.durableWriteSettings(), database.renewalBatch().renew());
    }

    List<Lease> renewLeases(List<Lease> batch, Duration duration) {
        if (batch.size() == 1) {
            return Collections.singletonList(leases.renewLease(batch.get(0), duration));
        }
        Map<String, Long> renewed = new HashMap<>();
        for (int from = 0; from < batch.size(); from += RenewalBatch.SIZE) {
            renewed.putAll(renew(batch.subList(from, Math.min(batch.size(), from + RenewalBatch.SIZE)), duration));
        }
        List<Lease> answers = new ArrayList<>(batch.size());
        for (Lease lease : batch) {
            Long version = renewed.get(lease.owner());
            answers.add(version == null ? null : new Lease(lease.key(), lease.owner(), lease.token(), version));
        }
        return answers;
    }

    /** @return the new version of each lease renewed, by owner */
    private Map<String, Long> renew(List<Lease> batch, Duration duration) {
        // in key order, the order in which the rows are locked: two batches never wait for each other in a cycle
        List<Lease> sorted = batch.stream().sorted(Comparator.comparing(Lease::key)).toList();
        RenewalBatch statements = database.renewalBatch();
        String what = "renewing the leases of " + sorted.size() + " keys";
        return store.call(sorted.get(0).key(), what, CallBounds.forRenewal(duration), connection -> {
            Map<String, Long> renewed = new HashMap<>();
            try (PreparedStatement renew = connection.prepareStatement(renewal.sql())) {
                renew.setLong(1, duration.toNanos() / 1000);
                bind(connection, renew, 2, sorted, statements.byArrays());
                if (statements.readRenewed() == null) {
                    try (ResultSet rows = renewal.rows(renew)) {
                        readOwners(rows, renewed);
                    }
                    return renewed;
                }
                renewal.run(renew);
            }
            try (PreparedStatement read = connection.prepareStatement(statements.readRenewed())) {
                bind(connection, read, 1, sorted, false);
                try (ResultSet rows = read.executeQuery()) {
                    readOwners(rows, renewed);
                }
            }
            return renewed;
        });
    }

    private static void bind(Connection connection, PreparedStatement statement, int first, List<Lease> batch,
                             boolean byArrays) throws SQLException {
        if (byArrays) {
            statement.setArray(first, connection.createArrayOf("varchar", batch.stream().map(Lease::key).toArray()));
            statement.setArray(first + 1, connection.createArrayOf("varchar", batch.stream().map(Lease::owner).toArray()));
            statement.setArray(first + 2, connection.createArrayOf("bigint", batch.stream().map(Lease::token).toArray()));
            return;
        }
        // lists of a fixed length: the last lease fills the places left
        int triples = first + RenewalBatch.SIZE;
        for (int i = 0; i < RenewalBatch.SIZE; i++) {
            Lease lease = batch.get(Math.min(i, batch.size() - 1));
            statement.setString(first + i, lease.key());
            statement.setString(triples + 3 * i, lease.key());
            statement.setString(triples + 3 * i + 1, lease.owner());
            statement.setLong(triples + 3 * i + 2, lease.token());
        }
    }

    private static void readOwners(ResultSet rows, Map<String, Long> renewed) throws SQLException {
        while (rows.next()) {
            renewed.put(rows.getString(1), rows.getLong(2));
        }
    }
}
