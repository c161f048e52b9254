package io.locked.jpa.internal.nativepath;

import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.FreeRowsRenewal;
import io.locked.jpa.internal.dialect.InlinedStatement;
import io.locked.jpa.internal.dialect.RenewalBatch;
import io.locked.jpa.internal.dialect.SessionLockTimeout;
import io.locked.spi.Lease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Renewals on the native path: a lone lease by the database's renewal of one lease where it has one
 * ({@link Dialect#renewLease()}), and many by up to {@link RenewalBatch#SIZE} leases per autocommit
 * statement ({@link Dialect#renewalBatch()}), sent on MariaDB and MySQL with its values written in
 * ({@link RenewalBatch#readRenewed()}). Each lease is told apart by its owner, the id of its own
 * acquisition: the leases renewed are those whose owners the statement returns; on MariaDB and MySQL,
 * whose statement returns no rows, every lease of the batch where it counts a row per lease (the
 * common case, one statement a batch), else those that a read after it shows live under their owner
 * and token ({@link #distinctLeases}). On MySQL 8 a batch never waits for a row held elsewhere
 * ({@link FreeRowsFirstRenewals}), nor on PostgreSQL ({@link RenewalBatch#skippingHeldRows}).
 *
 * <p>A call is bounded by a third of the lease ({@link CallBounds#forRenewal}), and its statements on
 * the server by half of that ({@link CallBounds#serverMillis}): a statement that kept waiting for a
 * row lock after its client gave up would land later, judged and timed on a clock its holder no longer
 * counts on. A renewal never shortens a lease, and judges it at the row ({@link Dialect}).
 */
final class NativeRenewals {
    private final Dialect database;
    private final StoreCalls store;
    /**
     * Where the values are written into the text ({@link RenewalBatch#readRenewed()}): the batch's two
     * statements as split at their placeholders, for the statement bound last. A JVM's leases have
     * one or a few lengths, so this is split again rarely; null until the first batch.
     */
    private volatile InlinedBatch inlined;
    /** Where a batch must not wait for a row held elsewhere ({@link Dialect#freeRowsRenewal}), else null. */
    private final FreeRowsFirstRenewals freeRowsFirst;

    /** The renewal under its bound and the read after it, split at their placeholders. */
    private record InlinedBatch(long serverMillis, InlinedStatement renew, InlinedStatement read) {
    }

    NativeRenewals(Dialect database, StoreCalls store) {
        this.database = database;
        this.store = store;
        FreeRowsRenewal freeRows = database.freeRowsRenewal();
        this.freeRowsFirst = freeRows == null ? null : new FreeRowsFirstRenewals(freeRows, store, this::renewLease);
    }

    Lease renewLease(Lease lease, Duration duration) {
        String renewal = database.renewLease();
        if (renewal == null) {
            return renewLeases(List.of(lease), duration).get(0);
        }
        Duration late = database.renewalBoundLateness();
        CallBounds bounds = CallBounds.forRenewal(duration, late);
        long serverMillis = bounds.serverMillis(late);
        SettingsThenUpdate renew = SettingsThenUpdate.of(database.renewalSettings(serverMillis),
                database.withRenewalBound(renewal, serverMillis));
        int renewed = store.call(lease.key(), "renewing the lease", bounds, connection -> {
            try (SessionLockTimeout bounded = database.boundRenewal(connection, serverMillis);
                 PreparedStatement statement = connection.prepareStatement(renew.sql())) {
                statement.setLong(1, micros(duration));
                statement.setString(2, lease.key());
                statement.setString(3, lease.owner());
                statement.setLong(4, lease.token());
                return renew.run(statement);
            }
        });
        return renewed == 0 ? null : new Lease(lease.key(), lease.owner(), lease.token(), lease.version() + 1);
    }

    List<Lease> renewLeases(List<Lease> batch, Duration duration) {
        if (batch.size() == 1 && database.renewLease() != null) {
            return Collections.singletonList(renewLease(batch.get(0), duration));
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
        Duration late = database.renewalBoundLateness();
        CallBounds bounds = CallBounds.forRenewal(duration, late);
        long serverMillis = bounds.serverMillis(late);
        String what = "renewing the leases of " + sorted.size() + " keys";
        if (statements.readRenewed() != null) {
            InlinedBatch texts = inlined(statements, serverMillis);
            if (freeRowsFirst != null) {
                return freeRowsFirst.renew(sorted, duration, texts.renew(), texts.read(), bounds, what);
            }
            Object[] values = values(micros(duration), sorted);
            String renewText = texts.renew().with(values);
            int leases = distinctLeases(sorted);
            return store.call(sorted.get(0).key(), what, bounds, connection -> {
                try (SessionLockTimeout bounded = database.boundRenewal(connection, serverMillis);
                     Statement statement = connection.createStatement()) {
                    if (statement.executeUpdate(renewText) == leases) {
                        return everyLeaseRenewed(sorted);
                    }
                    // the read's values are the renewal's list of keys, after the lease micros
                    String readText = texts.read().with(Arrays.copyOfRange(values, 1, 1 + RenewalBatch.SIZE));
                    try (ResultSet rows = statement.executeQuery(readText)) {
                        return liveLeasesOf(sorted, rows);
                    }
                }
            });
        }
        if (statements.skippingHeldRows() != null && sorted.size() > 1) {
            return renewSkippingHeldRows(sorted, duration, statements, bounds, serverMillis, what);
        }
        return renewReturningOwners(sorted, duration, statements.renew(), statements.byArrays(), false, bounds, serverMillis,
                what).versions();
    }

    /**
     * The batch in the text that skips the rows other sessions hold ({@link RenewalBatch#skippingHeldRows}), then
     * the leases whose rows it skipped in the batch's own text, which waits for them within its bound.
     */
    private Map<String, Long> renewSkippingHeldRows(List<Lease> sorted, Duration duration, RenewalBatch statements,
                                                    CallBounds bounds, long serverMillis, String what) {
        Renewed free = renewReturningOwners(sorted, duration, statements.skippingHeldRows(), true, true, bounds,
                serverMillis, what);
        Map<String, Long> renewed = new HashMap<>(free.versions());
        List<Lease> skipped = sorted.stream().filter(lease -> !free.lockedKeys().contains(lease.key())).toList();
        if (!skipped.isEmpty()) {
            renewed.putAll(renewReturningOwners(skipped, duration, statements.renew(), statements.byArrays(), false,
                    bounds, serverMillis, "renewing the leases of " + skipped.size() + " keys whose rows were held").versions());
        }
        return renewed;
    }

    /**
     * What a renewal that returns its rows answered: the new version of each lease renewed, by owner, and
     * where it returns the key of each row it locked first (the skipping text), those keys.
     */
    private record Renewed(Map<String, Long> versions, Set<String> lockedKeys) {
    }

    /** @param keysFirst whether each row returned begins with the key of a row the statement locked */
    private Renewed renewReturningOwners(List<Lease> sorted, Duration duration, String statement, boolean byArrays,
                                         boolean keysFirst, CallBounds bounds, long serverMillis, String what) {
        SettingsThenUpdate renewal = SettingsThenUpdate.of(database.renewalSettings(serverMillis),
                database.withRenewalBound(statement, serverMillis));
        return store.call(sorted.get(0).key(), what, bounds, connection -> {
            Renewed renewed = new Renewed(new HashMap<>(), new HashSet<>());
            try (SessionLockTimeout bounded = database.boundRenewal(connection, serverMillis);
                 PreparedStatement renew = connection.prepareStatement(renewal.sql())) {
                renew.setLong(1, micros(duration));
                bind(connection, renew, 2, sorted, byArrays);
                try (ResultSet rows = renewal.rows(renew)) {
                    int owner = keysFirst ? 2 : 1;
                    while (rows.next()) {
                        if (keysFirst) {
                            renewed.lockedKeys().add(rows.getString(1));
                        }
                        // null where the skipping text locked a row whose lease it did not renew: lost
                        String renewedOwner = rows.getString(owner);
                        if (renewedOwner != null) {
                            renewed.versions().put(renewedOwner, rows.getLong(owner + 1));
                        }
                    }
                }
            }
            return renewed;
        });
    }

    /**
     * Each row the renewal counts matched one (key, owner, token) of the batch, its own (a row has one
     * owner, and an owner is one acquisition's), so it counts at most one row per distinct lease. Where
     * it counts as many as the batch holds, each lease was renewed and its version went up by one, as
     * {@link #renewLease} counts it; where it counts fewer (a lease lost, or a key's old lease beside
     * its new one), the read tells which. Found rows or changed rows, as the driver counts them, are
     * the same here: each row found is changed (its version goes up).
     *
     * @return how many distinct (key, owner, token) the batch holds
     */
    static int distinctLeases(List<Lease> batch) {
        Set<List<Object>> leases = new HashSet<>();
        for (Lease lease : batch) {
            leases.add(List.of(lease.key(), lease.owner(), lease.token()));
        }
        return leases.size();
    }

    /** @return the new version of each lease of the batch, all renewed */
    static Map<String, Long> everyLeaseRenewed(List<Lease> batch) {
        Map<String, Long> renewed = new HashMap<>();
        batch.forEach(lease -> renewed.put(lease.owner(), lease.version() + 1));
        return renewed;
    }

    /** @return the new version of each lease of the batch that the rows read show live, under its owner and token */
    static Map<String, Long> liveLeasesOf(List<Lease> batch, ResultSet rows) throws SQLException {
        // by owner, the acquisition's own id: the key is read back as the column's bytes decode
        Map<String, Lease> byOwner = new HashMap<>();
        batch.forEach(lease -> byOwner.put(lease.owner(), lease));
        Map<String, Long> renewed = new HashMap<>();
        while (rows.next()) {
            Lease lease = byOwner.get(rows.getString(2));
            if (lease != null && lease.token() == rows.getLong(3)) {
                renewed.put(lease.owner(), rows.getLong(4));
            }
        }
        return renewed;
    }

    private InlinedBatch inlined(RenewalBatch statements, long serverMillis) {
        InlinedBatch known = inlined;
        if (known == null || known.serverMillis() != serverMillis) {
            known = new InlinedBatch(serverMillis, new InlinedStatement(database.withRenewalBound(statements.renew(), serverMillis)),
                    new InlinedStatement(statements.readRenewed()));
            inlined = known;
        }
        return known;
    }

    /**
     * The lease micros where given, then the lists of fixed length, the last lease filling the places
     * left: the batch's values in the order of their placeholders.
     */
    static Object[] values(Long leaseMicros, List<Lease> batch) {
        int first = leaseMicros == null ? 0 : 1;
        Object[] values = new Object[first + 4 * RenewalBatch.SIZE];
        if (leaseMicros != null) {
            values[0] = leaseMicros;
        }
        int triples = first + RenewalBatch.SIZE;
        for (int i = 0; i < RenewalBatch.SIZE; i++) {
            Lease lease = batch.get(Math.min(i, batch.size() - 1));
            values[first + i] = lease.key();
            values[triples + 3 * i] = lease.key();
            values[triples + 3 * i + 1] = lease.owner();
            values[triples + 3 * i + 2] = lease.token();
        }
        return values;
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
        Object[] values = values(null, batch);
        for (int i = 0; i < values.length; i++) {
            if (values[i] instanceof String text) {
                statement.setString(first + i, text);
            } else {
                statement.setLong(first + i, (Long) values[i]);
            }
        }
    }

    static long micros(Duration duration) {
        return duration.toNanos() / 1000;
    }
}
