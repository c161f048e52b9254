package io.locked.jpa.internal.entitypath;

import static io.locked.jpa.internal.entitypath.EntityRows.QUERY_TIMEOUT;

import io.locked.jpa.LockRow;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.ConnectionBudget;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.transaction.TokenWrites;
import io.locked.jpa.internal.transaction.UnitTransactions;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRowState;
import io.locked.spi.PessimisticHold;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The JPA path: the lock rows ({@link LockRow}) through the {@code EntityManager} only, on any JPA
 * provider and any database it supports. Each call has an {@code EntityManager} and a resource-local
 * transaction of its own ({@link EntityTransactions}).
 * <ul>
 *   <li>Pessimistic ({@link PessimisticRowLocks}): a {@code PESSIMISTIC_WRITE} read row-locks the key
 *   (its wait bounded by the lock timeout hint, and by a query timeout where the provider or database
 *   ignores that hint); the token is drawn into the managed row and flushed, and the hold's commit
 *   releases it ({@link EntityRowHold}). A missing row is first persisted in a short transaction of its
 *   own, where a duplicate means a concurrent acquirer created it.</li>
 *   <li>Optimistic ({@link EntityLeases}): each take, renewal, hand-over and release reads the row with
 *   the database's clock in one query, judges it, and writes it with one JPQL update guarded by the
 *   version it read: a compare-and-set on the {@code @Version}. Expiry is judged only on that clock.</li>
 * </ul>
 * Tokens are drawn as on the native path, {@code max(token + 1, database clock in microseconds)},
 * the clock read after the row lock was granted ({@link DatabaseClock}). Pessimistic holders take at
 * most all but one of the pool's connections where its size is known, as on the native path
 * ({@link ConnectionBudget}). Inspection ({@link EntityInspection}), forced release
 * ({@link EntityForcedRelease}) and cleanup ({@link EntityIdleRows}) go through JPQL too.
 */
public final class EntityLockRepository implements LockRepository {
    private final EntityTransactions ownTransactions;
    private final PessimisticRowLocks pessimistic;
    private final EntityLeases leases;
    private final EntityInspection inspection;
    private final EntityForcedRelease forcedRelease;
    private final EntityIdleRows idleRows;
    private final EntityRows rows;
    private final RowLocksWithoutWaiting sharedRows;

    /**
     * @param connections    the unit's pool as Locked sees it, for the pessimistic budget; null where
     *                       Locked cannot reach it (no budget then)
     * @param connectionWait how long a pessimistic acquisition may wait for the budget, whatever its own wait
     * @param tokenWrites    whether a pessimistic release commits its token or rolls it back
     * @param wholeSecondWaits whether the provider bounds a row lock's wait in whole seconds here
     *                       ({@code Dialect.rowLockWaitsInWholeSeconds})
     */
    public EntityLockRepository(EntityManagerFactory factory, DatabaseClock clock, UnitTransactions transactions,
                                LockConnections connections, Duration connectionWait, TokenWrites tokenWrites,
                                RowLocksWithoutWaiting sharedRows, boolean wholeSecondWaits) {
        EntityManagers managers = EntityManagers.of(factory);
        this.ownTransactions = new EntityTransactions(managers, transactions);
        this.rows = new EntityRows(managers, clock, transactions, ownTransactions, wholeSecondWaits, sharedRows);
        this.sharedRows = sharedRows;
        this.pessimistic = new PessimisticRowLocks(managers, transactions, ownTransactions, rows, connections,
                connectionWait, tokenWrites, sharedRows);
        this.leases = new EntityLeases(clock, ownTransactions, rows);
        this.inspection = new EntityInspection(managers, clock, transactions, ownTransactions, rows);
        this.forcedRelease = new EntityForcedRelease(factory, ownTransactions, rows, inspection);
        this.idleRows = new EntityIdleRows(clock, ownTransactions);
    }

    @Override
    public Optional<String> noSharedRowLocks() {
        return Optional.ofNullable(sharedRows.refusal());
    }

    @Override
    public boolean createRow(String key) {
        return rows.createRow(key, CallBounds.brief());
    }

    @Override
    public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
        return pessimistic.lock(key, owner, holder, dbWait);
    }

    @Override
    public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
        return leases.takeLease(key, owner, holder, lease, dbWait);
    }

    @Override
    public Lease renewLease(Lease lease, Duration duration) {
        return leases.renewLease(lease, duration);
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

    /**
     * Frees a live optimistic lease with a new token, and raises the key's fence to it where the
     * fence table exists. The JPA path cannot end another session: a pessimistic hold is refused.
     */
    @Override
    public Optional<LockRowState> forceRelease(String key) {
        return forcedRelease.forceRelease(key, Duration.ZERO);
    }

    @Override
    public Optional<LockRowState> forceRelease(String key, Duration lockDelay) {
        return forcedRelease.forceRelease(key, lockDelay);
    }

    @Override
    public void checkReachable(Duration timeout) {
        CallBounds bounds = CallBounds.readiness(timeout);
        ownTransactions.inTransaction("(readiness)", "reading the lock table", bounds, manager ->
                manager.createQuery("SELECT COUNT(r) FROM LockRow r WHERE r.key = :none")
                        .setParameter("none", "").setHint(QUERY_TIMEOUT, bounds.statementMillis()).getSingleResult(), false);
    }

    @Override
    public int deleteIdleRows(Duration idleFor) {
        return idleRows.deleteIdleRows(idleFor);
    }
}
