package io.locked.jpa.internal.nativepath;

import io.locked.api.LockMode;
import io.locked.jpa.LockRow;
import io.locked.jpa.internal.cleanup.NativeIdleRows;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.ConnectionBudget;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.connection.PoolShortage;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.RenewalBatch;
import io.locked.jpa.internal.dialect.SharedRowStatements;
import io.locked.jpa.internal.inspection.ForcedRelease;
import io.locked.jpa.internal.inspection.NativeInspection;
import io.locked.jpa.internal.schema.SchemaScript;
import io.locked.jpa.internal.transaction.TokenWrites;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRowState;
import io.locked.spi.NoConnectionException;
import io.locked.spi.PessimisticHold;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The native path: the lock rows ({@link LockRow}) of a JPA persistence unit through statements
 * written for their database ({@link Dialect}). Each operation is the fewest plain JDBC
 * statements that do it, on a connection from the unit's own pool: an optimistic take, renewal or
 * release is one autocommit statement ({@link NativeLeases}); a pessimistic acquisition is one
 * statement that row-locks the key and writes its token, in the lock's own transaction, and its
 * release is the commit ({@link NativePessimisticLocks}). The table comes from the schema script of
 * the {@link Dialect} ({@link SchemaScript}).
 *
 * <p>Every call is bounded ({@link CallBounds}): an acquisition waits for a pooled connection within
 * its own wait or the connection wait, whichever is longer, and throws {@link NoConnectionException}
 * (with a warning naming the pool) when none came; each
 * statement runs under a network timeout, of the wait plus a short allowance for an acquisition, of
 * a third of the lease for a renewal, of the allowance for a release. Pessimistic acquisitions,
 * which keep their connection while they wait and while they hold, take at most all but one of the
 * pool's connections where its size can be read ({@link ConnectionBudget}): renewals and releases
 * always find the last one.
 */
public final class NativeLockRepository implements LockRepository {
    private final LockConnections connections;
    private final Dialect database;
    private final KnownGaleraNode galera;
    private final KeyRows keyRows;
    /** How long a row's creation on its own waits for another transaction that keeps its place. */
    private static final long CREATE_ROW_WAIT_MILLIS = 1000;
    private final StoreCalls store;
    private final NativePessimisticLocks pessimisticLocks;
    private final NativeLeases leases;
    private final NativeRenewals renewals;
    private final NativeInspection inspection;
    private final ForcedRelease forcedRelease;

    /**
     * @param connections        the unit's connections
     * @param database           which statements to use
     * @param galeraSingleWriter whether every JVM's lock statements reach one Galera node
     * @param connectionWait     how long an acquisition may wait for a connection, whatever its own wait
     * @param tokenWrites        whether a pessimistic release commits its token or rolls it back
     * @throws IllegalStateException if the lock table is there but would not compare keys exactly
     *                               (the message names the statement that converts it)
     */
    public NativeLockRepository(LockConnections connections, Dialect database, boolean galeraSingleWriter,
                                Duration connectionWait, TokenWrites tokenWrites) {
        this.connections = connections;
        this.database = database;
        this.galera = new KnownGaleraNode(connections, database.mayBeGaleraNode(), galeraSingleWriter);
        try {
            galera.node(CallBounds.brief());
        } catch (IllegalStateException unreachable) {
            // a database that is down fails the first lock clearly, which asks again
        }
        database.checkLockTable(connections);
        KnownTokenClock tokenClock = new KnownTokenClock(connections, database);
        tokenClock.askAtStartUp();
        PoolShortage shortage = new PoolShortage(connections);
        this.keyRows = new KeyRows(database);
        this.store = new StoreCalls(connections, shortage);
        this.pessimisticLocks = new NativePessimisticLocks(connections, database, galera, shortage, keyRows,
                connectionWait, tokenWrites, tokenClock);
        this.leases = new NativeLeases(database, galera, store, keyRows, connectionWait, tokenClock);
        this.renewals = new NativeRenewals(database, store);
        this.inspection = new NativeInspection(connections, database);
        this.forcedRelease = new ForcedRelease(connections, database, inspection);
    }

    @Override
    public Optional<String> refusal(LockMode mode) {
        return galera.refusal(mode);
    }

    @Override
    public Optional<String> noSharedRowLocks() {
        return keyRows.sharesRows() ? Optional.empty() : Optional.of(SharedRowStatements.refusal(database.toString()));
    }

    @Override
    public boolean createRow(String key) {
        return store.call(key, "creating its row", CallBounds.brief(), connection -> {
            try {
                keyRows.insertIfAbsent(connection, key, CREATE_ROW_WAIT_MILLIS);
                return true;
            } catch (SQLException failure) {
                if (LockConflicts.isBusy(failure)) {
                    return false;
                }
                throw failure;
            }
        });
    }

    /** @return the database family in use */
    Dialect database() {
        return database;
    }

    /** With clock tokens; a hold that must commit all the same (a Galera node's) is released instead. */
    @Override
    public boolean handsOverPessimisticHolds() {
        return pessimisticLocks.handsOver();
    }

    @Override
    public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
        return pessimisticLocks.lock(key, owner, holder, dbWait);
    }

    @Override
    public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
        return leases.takeLease(key, owner, holder, lease, dbWait);
    }

    @Override
    public Lease renewLease(Lease lease, Duration duration) {
        return renewals.renewLease(lease, duration);
    }

    @Override
    public int renewalBatchSize() {
        return RenewalBatch.SIZE;
    }

    @Override
    public List<Lease> renewLeases(List<Lease> batch, Duration duration) {
        return renewals.renewLeases(batch, duration);
    }

    @Override
    public Lease handOverLease(Lease lease, String newOwner, String holder, Duration duration) {
        return leases.handOverLease(lease, newOwner, holder, duration);
    }

    @Override
    public boolean releaseLease(Lease lease) {
        return leases.releaseLease(lease, null);
    }

    @Override
    public boolean releaseLease(Lease lease, Duration holdAtLeast) {
        return leases.releaseLease(lease, holdAtLeast);
    }

    @Override
    public void checkReachable(Duration timeout) {
        // the empty key is never locked: a read that waits for no row lock
        store.call("(readiness)", "reading the lock table", CallBounds.readiness(timeout), connection -> {
            try (PreparedStatement read = connection.prepareStatement(
                    "SELECT COUNT(*) FROM " + LockRow.TABLE + " WHERE lock_key = ''")) {
                try (ResultSet answer = read.executeQuery()) {
                    return answer.next();
                }
            }
        });
    }

    @Override
    public Optional<LockRowState> inspect(String key) {
        return inspection.inspect(key);
    }

    @Override
    public List<LockRowState> list(String prefix, String afterKey, int limit) {
        return inspection.list(prefix, afterKey, limit);
    }

    @Override
    public List<LockRowState> inspectAll(List<String> keys) {
        return inspection.inspectAll(keys);
    }

    @Override
    public List<LockRowState> inspectLeases(List<String> keys) {
        return inspection.inspectLeases(keys);
    }

    @Override
    public Optional<LockRowState> forceRelease(String key) {
        return forcedRelease.forceRelease(key, Duration.ZERO);
    }

    @Override
    public Optional<LockRowState> forceRelease(String key, Duration lockDelay) {
        return forcedRelease.forceRelease(key, lockDelay);
    }

    @Override
    public int deleteIdleRows(Duration idleFor) {
        if (idleFor == null || idleFor.isNegative() || idleFor.isZero()) {
            throw new IllegalArgumentException("Idle time must be positive, was " + idleFor);
        }
        return new NativeIdleRows(connections, database).delete(idleFor);
    }
}
