package io.locked.jpa.internal.nativepath;

import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.FreeRowsRenewal;
import io.locked.jpa.internal.dialect.InlinedStatement;
import io.locked.jpa.internal.dialect.RenewalBatch;
import io.locked.spi.Lease;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A batch of renewals that never waits for a row another session holds, where such a wait would be
 * counted in whole seconds and end late ({@link Dialect#freeRowsRenewal}, MySQL 8). One autocommit
 * statement renews the leases whose rows no other session holds; where it counts a row per lease of the
 * batch (the common case), each was renewed. Where it counts fewer, it does not tell a row it skipped from
 * a lease it found lost, and a transaction settles it: the rows of the batch's keys that no other session
 * holds are locked ({@code SKIP LOCKED}), the leases found there under their owners are renewed (again,
 * which is harmless: a renewal never shortens a lease), one whose row is there under another owner was
 * lost, and the batch's rows are read where the renewal counted fewer rows than it had leases, or where a
 * row was held elsewhere. A lease whose row was held elsewhere is judged by the row as last committed:
 * lost where that shows it ended or another's (only its own holder's renewal could bring it back), else
 * renewed alone after the commit, waiting for the row as a lone renewal does. Its row was then held for a
 * moment only: by an acquirer that found the lease live, a forced release, or its holder's own release.
 */
final class FreeRowsFirstRenewals {
    /** The renewal of one lease, as {@link NativeRenewals#renewLease} does it. */
    @FunctionalInterface
    interface LoneRenewal {
        Lease renew(Lease lease, Duration duration);
    }

    /** The leases renewed in the batch (new version by owner), and those to renew alone. */
    private record Outcome(Map<String, Long> renewed, List<Lease> alone) {
    }

    private final StoreCalls store;
    private final InlinedStatement renewFree;
    private final InlinedStatement lockFree;
    private final LoneRenewal lone;

    FreeRowsFirstRenewals(FreeRowsRenewal statements, StoreCalls store, LoneRenewal lone) {
        this.store = store;
        this.renewFree = new InlinedStatement(statements.renew());
        this.lockFree = new InlinedStatement(statements.lockFree());
        this.lone = lone;
    }

    /**
     * @param sorted the batch, in key order
     * @param renew  the database's renewal of a batch, to be given {@link NativeRenewals#values} of the leases it renews
     * @param read   the read of the batch's live rows, to be given its keys
     * @return the new version of each lease renewed, by owner
     */
    Map<String, Long> renew(List<Lease> sorted, Duration duration, InlinedStatement renew, InlinedStatement read,
                            CallBounds bounds, String what) {
        long leaseMicros = NativeRenewals.micros(duration);
        Object[] values = NativeRenewals.values(leaseMicros, sorted);
        Object[] keys = Arrays.copyOfRange(values, 1, 1 + RenewalBatch.SIZE);
        // the keys first, in the free rows' read, then the lease micros and the triples
        Object[] freeValues = new Object[values.length];
        System.arraycopy(keys, 0, freeValues, 0, keys.length);
        freeValues[keys.length] = leaseMicros;
        System.arraycopy(values, 1 + keys.length, freeValues, keys.length + 1, values.length - 1 - keys.length);
        String renewText = renewFree.with(freeValues);
        int leases = NativeRenewals.distinctLeases(sorted);
        Outcome outcome = store.call(sorted.get(0).key(), what, bounds, connection -> {
            try (Statement statement = connection.createStatement()) {
                if (statement.executeUpdate(renewText) == leases) {
                    return new Outcome(NativeRenewals.everyLeaseRenewed(sorted), List.of());
                }
                statement.execute("START TRANSACTION");
                try {
                    Outcome inBatch = renewFreeRows(statement, sorted, leaseMicros, keys, renew, read);
                    statement.execute("COMMIT");
                    return inBatch;
                } catch (SQLException | RuntimeException failure) {
                    try {
                        statement.execute("ROLLBACK");
                    } catch (SQLException notRolledBack) {
                        failure.addSuppressed(notRolledBack);
                    }
                    throw failure;
                }
            }
        });
        Map<String, Long> renewed = new HashMap<>(outcome.renewed());
        for (Lease lease : outcome.alone()) {
            Lease alone = lone.renew(lease, duration);
            if (alone != null) {
                renewed.put(lease.owner(), alone.version());
            }
        }
        return renewed;
    }

    private Outcome renewFreeRows(Statement statement, List<Lease> sorted, long leaseMicros, Object[] keys,
                                  InlinedStatement renew, InlinedStatement read) throws SQLException {
        // the owner of each row this transaction locked, by key; a row held elsewhere is not there
        Map<String, String> lockedRows = new HashMap<>();
        try (ResultSet rows = statement.executeQuery(lockFree.with(keys))) {
            while (rows.next()) {
                lockedRows.put(rows.getString(1), rows.getString(2));
            }
        }
        List<Lease> free = new ArrayList<>();
        boolean heldElsewhere = false;
        for (Lease lease : sorted) {
            if (!lockedRows.containsKey(lease.key())) {
                heldElsewhere = true;
            } else if (lease.owner().equals(lockedRows.get(lease.key()))) {
                free.add(lease);
            } // else another owner's row: lost
        }
        // every row it names is locked by this transaction: it never waits
        int counted = free.isEmpty() ? 0 : statement.executeUpdate(renew.with(NativeRenewals.values(leaseMicros, free)));
        if (!heldElsewhere && counted == NativeRenewals.distinctLeases(free)) {
            return new Outcome(NativeRenewals.everyLeaseRenewed(free), List.of());
        }
        Map<String, Long> renewed = new HashMap<>();
        List<Lease> alone = new ArrayList<>();
        // this transaction's own rows as it left them (live: renewed), the others as last committed
        Map<String, Long> live;
        try (ResultSet rows = statement.executeQuery(read.with(keys))) {
            live = NativeRenewals.liveLeasesOf(sorted, rows);
        }
        for (Lease lease : sorted) {
            Long version = live.get(lease.owner());
            if (version == null) {
                continue;
            }
            if (!lockedRows.containsKey(lease.key())) {
                alone.add(lease);
            } else if (free.contains(lease)) {
                renewed.put(lease.owner(), version);
            }
        }
        return new Outcome(renewed, alone);
    }
}
