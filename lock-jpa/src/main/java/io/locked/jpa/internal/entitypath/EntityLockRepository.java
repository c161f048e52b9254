package io.locked.jpa.internal.entitypath;

import static io.locked.jpa.internal.entitypath.EntityRows.LOCK_TIMEOUT;
import static io.locked.jpa.internal.entitypath.EntityRows.NO_WAIT;
import static io.locked.jpa.internal.entitypath.EntityRows.QUERY_TIMEOUT;

import io.locked.api.LockMode;
import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.LockRow;
import io.locked.jpa.LockStatements;
import io.locked.jpa.internal.cleanup.IdleRowBatches;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.ConnectionBudget;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.dialect.FenceStatements;
import io.locked.jpa.internal.fence.FenceDetection;
import io.locked.jpa.internal.fence.JpaFenceTransaction;
import io.locked.jpa.internal.inspection.NativeInspection;
import io.locked.jpa.internal.transaction.UnitTransactions;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRowState;
import io.locked.spi.PessimisticHold;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceException;
import jakarta.persistence.TypedQuery;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The JPA path: the lock rows ({@link LockRow}) through the {@code EntityManager} only, on any JPA
 * provider and any database it supports. Each call has an {@code EntityManager} and a resource-local
 * transaction of its own.
 * <ul>
 *   <li>Pessimistic: a {@code PESSIMISTIC_WRITE} read row-locks the key (its wait bounded by the lock
 *   timeout hint, and by a query timeout where the provider or database ignores that hint); the token is drawn into the managed row and flushed, and the hold's commit releases it.
 *   A missing row is first persisted in a short transaction of its own, where a duplicate means a
 *   concurrent acquirer created it.</li>
 *   <li>Optimistic: each take, renewal, hand-over and release reads the row with the database's
 *   clock in one query, judges it, and writes it with one JPQL update guarded by the version it
 *   read: a compare-and-set on the {@code @Version}. Expiry is judged only on that clock.</li>
 * </ul>
 * Tokens are drawn as on the native path, {@code max(token + 1, database clock in microseconds)},
 * the clock read after the row lock was granted ({@link DatabaseClock}). Pessimistic holders take at
 * most all but one of the pool's connections where its size is known, as on the native path
 * ({@link ConnectionBudget}).
 */
public final class EntityLockRepository implements LockRepository {
    /** How long reading a page of rows, or a forced release, may take. */
    private static final Duration INSPECTION_BOUND = Duration.ofSeconds(10);
    // rows created but never acquired have no acquired_at yet
    private static final String IDLE =
            "(r.acquiredAt IS NULL OR r.acquiredAt < :idleSince) AND (r.owner IS NULL OR r.expiresAt < :idleSince)";

    private final EntityManagerFactory factory;
    private final EntityTransactions ownTransactions;
    private final EntityRows rows;
    private final PessimisticRowLocks pessimistic;
    private final EntityLeases leases;
    private final DatabaseClock clock;
    private final UnitTransactions transactions;

    /**
     * @param connections    the unit's pool as Locked sees it, for the pessimistic budget; null where
     *                       Locked cannot reach it (no budget then)
     * @param connectionWait how long a pessimistic acquisition may wait for the budget, whatever its own wait
     */
    public EntityLockRepository(EntityManagerFactory factory, DatabaseClock clock, UnitTransactions transactions,
                         LockConnections connections, Duration connectionWait) {
        this.factory = factory;
        this.clock = clock;
        this.transactions = transactions;
        this.ownTransactions = new EntityTransactions(factory, transactions);
        this.rows = new EntityRows(factory, clock, transactions, ownTransactions);
        this.pessimistic = new PessimisticRowLocks(factory, transactions, ownTransactions, rows, connections,
                connectionWait);
        this.leases = new EntityLeases(clock, ownTransactions, rows);
    }

    @Override
    public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
        return pessimistic.lock(key, holder, dbWait);
    }

    // ---- inspection

    @Override
    public Optional<LockRowState> inspect(String key) {
        return states(key, "r.key = :key", Map.of("key", key), 1).stream().findFirst();
    }

    @Override
    public List<LockRowState> list(String prefix, String afterKey, int limit) {
        return states(prefix + "*", "r.key LIKE :prefix ESCAPE '!' AND r.key > :after",
                Map.of("prefix", NativeInspection.likePrefix(prefix), "after", afterKey == null ? "" : afterKey), limit);
    }

    /**
     * The committed rows, each free one tried with a lock that does not wait, in a transaction of
     * its own: a row that stays locked is held PESSIMISTIC, by a holder whose row change (holder,
     * token) JPA cannot read before it commits.
     */
    private List<LockRowState> states(String about, String filter, Map<String, Object> parameters, int limit) {
        CallBounds bounds = CallBounds.within(INSPECTION_BOUND);
        List<Object[]> rows = ownTransactions.inTransaction(about, "reading the lock rows", bounds, manager -> {
            var query = manager.createQuery("SELECT r.key, r.owner, r.holder, r.token, r.acquiredAt, r.expiresAt, "
                    + clock.jpql() + " FROM LockRow r WHERE " + filter + " ORDER BY r.key", Object[].class);
            parameters.forEach(query::setParameter);
            return query.setMaxResults(limit).setHint(QUERY_TIMEOUT, bounds.statementMillis()).getResultList();
        }, false);
        List<LockRowState> states = new ArrayList<>(rows.size());
        for (Object[] row : rows) {
            String key = (String) row[0];
            String owner = (String) row[1];
            Instant expiresAt = (Instant) row[5];
            if (owner != null && expiresAt != null && expiresAt.isAfter(clock.instant(row[6]))) {
                states.add(new LockRowState(key, LockMode.OPTIMISTIC, (String) row[2], ((Number) row[3]).longValue(),
                        (Instant) row[4], expiresAt, owner, null));
            } else if (rowLockedNow(key)) {
                states.add(new LockRowState(key, LockMode.PESSIMISTIC, null, null, null, null, null, null));
            } else {
                states.add(new LockRowState(key, null, (String) row[2], ((Number) row[3]).longValue(), (Instant) row[4],
                        null, null, null));
            }
        }
        return states;
    }

    /** Tries the row's lock without waiting, in a transaction of its own that is rolled back. */
    private boolean rowLockedNow(String key) {
        CallBounds bounds = CallBounds.within(INSPECTION_BOUND);
        EntityManager manager = factory.createEntityManager();
        try {
            transactions.begin(manager);
            if (EntityRows.lockRow(manager, key, NO_WAIT) != null) {
                // an MVCC database that locks rows by writes only (HSQLDB) lets that read through: a
                // write that changes nothing meets a holder's write
                manager.createQuery("UPDATE LockRow r SET r.token = r.token WHERE r.key = :key")
                        .setParameter("key", key).setHint(QUERY_TIMEOUT, bounds.statementMillis()).executeUpdate();
            }
            return false;
        } catch (RuntimeException failure) {
            if (EntityConflicts.isBusy(failure)) {
                return true;
            }
            throw new LockStoreUnavailableException(key, "trying the row lock failed", failure);
        } finally {
            ownTransactions.end(manager);
        }
    }

    /**
     * Frees a live optimistic lease with a new token, and raises the key's fence to it where the
     * fence table exists. The JPA path cannot end another session: a pessimistic hold is refused.
     */
    @Override
    public Optional<LockRowState> forceRelease(String key) {
        Optional<LockRowState> held = inspect(key).filter(LockRowState::held);
        if (held.isEmpty()) {
            return held;
        }
        LockRowState lease = held.get();
        if (lease.mode() == LockMode.PESSIMISTIC) {
            throw new IllegalStateException("Cannot force the release of '" + key + "': it is held PESSIMISTIC, and the"
                    + " JPA path cannot end another database session. End the holder's process or transaction, or"
                    + " use the native statements (" + LockStatements.KEY + "=auto on MariaDB, MySQL, PostgreSQL or H2)");
        }
        boolean fenced = fenceTableExists(key);
        CallBounds bounds = CallBounds.within(INSPECTION_BOUND);
        Boolean freed = ownTransactions.inTransaction(key, "forcing the release", bounds, manager -> {
            LockRow row = EntityRows.lockRow(manager, key, (int) INSPECTION_BOUND.toMillis());
            if (row == null || !lease.owner().equals(row.getOwner())) {
                return false; // released or taken over meanwhile
            }
            long token = DatabaseClock.nextToken(row.getToken(), rows.now(manager, key, bounds));
            row.forcedFreeWith(token);
            manager.flush();
            if (fenced) {
                try {
                    FenceDetection.of(factory).raise(new JpaFenceTransaction(manager), key, token);
                } catch (SQLException failure) {
                    throw new PersistenceException("raising the fence of '" + key + "' failed", failure);
                }
            }
            return true;
        }, false);
        return freed ? held : Optional.empty();
    }

    private boolean fenceTableExists(String key) {
        try {
            ownTransactions.inTransaction(key, "looking for the fence table", CallBounds.within(INSPECTION_BOUND), manager ->
                    manager.createNativeQuery(FenceStatements.PROBE).getSingleResult(), false);
            return true;
        } catch (LockStoreUnavailableException failure) {
            if (LockConflicts.isMissingTable(failure)) {
                return false;
            }
            throw failure;
        }
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
        return leases.releaseLease(lease);
    }

    @Override
    public void checkReachable(Duration timeout) {
        CallBounds bounds = CallBounds.within(timeout);
        ownTransactions.inTransaction("(readiness)", "reading the lock table", bounds, manager ->
                manager.createQuery("SELECT COUNT(r) FROM LockRow r WHERE r.key = :none")
                        .setParameter("none", "").setHint(QUERY_TIMEOUT, bounds.statementMillis()).getSingleResult(), false);
    }

    @Override
    public int deleteIdleRows(Duration idleFor) {
        if (idleFor == null || idleFor.isNegative() || idleFor.isZero()) {
            throw new IllegalArgumentException("Idle time must be positive, was " + idleFor);
        }
        CallBounds bounds = CallBounds.maintenance();
        Instant idleSince = ownTransactions.inTransaction("(cleanup)", "reading the database clock", bounds, manager -> {
            // a count always answers one row, and the empty key is never locked: no row lock to wait for
            Object[] answer = (Object[]) manager.createQuery("SELECT COUNT(r), " + clock.jpql()
                            + " FROM LockRow r WHERE r.key = :none")
                    .setParameter("none", "").setHint(QUERY_TIMEOUT, bounds.statementMillis()).getSingleResult();
            return clock.instant(answer[1]).minus(idleFor);
        }, false);
        return IdleRowBatches.run(after -> deleteIdleBatch(after, idleSince));
    }

    // A batch reads the next idle keys, then locks them all at once without waiting, judges each row
    // again exactly and removes the idle ones, each step a short transaction. JPA has no SKIP LOCKED:
    // where a row of the batch is locked right now (a pessimistic holder's), the lock fails at once and
    // the batch is done again key by key, each key in a transaction of its own that skips the held
    // one. So a cleanup never makes an acquirer wait and never waits behind a holder.
    private IdleRowBatches.Batch deleteIdleBatch(String after, Instant idleSince) {
        CallBounds bounds = CallBounds.maintenance();
        List<String> candidates = ownTransactions.inTransaction("(cleanup)", "finding idle rows", bounds,
                manager -> idleKeys(manager, after, idleSince, bounds), false);
        if (candidates.isEmpty()) {
            return IdleRowBatches.Batch.END;
        }
        Integer deleted = ownTransactions.inTransaction("(cleanup)", "deleting idle rows", bounds, manager -> {
            int removed = 0;
            for (LockRow row : manager.createQuery("SELECT r FROM LockRow r WHERE r.key IN :keys", LockRow.class)
                    .setParameter("keys", candidates)
                    .setLockMode(LockModeType.PESSIMISTIC_WRITE)
                    .setHint(LOCK_TIMEOUT, NO_WAIT)
                    .setHint(QUERY_TIMEOUT, EntityRows.statementMillis(NO_WAIT))
                    .getResultList()) {
                if (row.idleSince(idleSince)) {
                    manager.remove(row);
                    removed++;
                }
            }
            // here rather than at commit: a delete that meets another transaction's write is busy
            manager.flush();
            return removed;
        }, true);
        if (deleted == null) {
            deleted = 0;
            for (String key : candidates) {
                deleted += deleteIfStillIdle(key, idleSince);
            }
        }
        return new IdleRowBatches.Batch(candidates, deleted);
    }

    // A driver that drops the fraction of a bound time must not make a row look busy: the query may
    // find too many (the time is rounded up), and each row is judged again, exactly, once locked.
    private static List<String> idleKeys(EntityManager manager, String after, Instant idleSince, CallBounds bounds) {
        TypedQuery<String> read = manager.createQuery("SELECT r.key FROM LockRow r WHERE " + IDLE
                        + (after == null ? "" : " AND r.key > :after") + " ORDER BY r.key", String.class)
                .setParameter("idleSince", EntityLeases.expiry(idleSince, Duration.ZERO))
                .setMaxResults(IdleRowBatches.SIZE)
                .setHint(QUERY_TIMEOUT, bounds.statementMillis());
        if (after != null) {
            read.setParameter("after", after);
        }
        return read.getResultList();
    }

    // One short transaction for a row that skips it if locked right now; the removal is guarded by
    // the version it locked.
    private int deleteIfStillIdle(String key, Instant idleSince) {
        CallBounds bounds = CallBounds.maintenance();
        Integer deleted = ownTransactions.inTransaction(key, "deleting an idle row", bounds, manager -> {
            LockRow row = EntityRows.lockRow(manager, key, NO_WAIT);
            if (row == null || !row.idleSince(idleSince)) {
                return 0;
            }
            manager.remove(row);
            return 1;
        }, true);
        return deleted == null ? 0 : deleted;
    }
}
