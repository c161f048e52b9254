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
import io.locked.jpa.internal.connection.PoolShortage;
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
import java.time.temporal.ChronoUnit;
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
    /** The answer of a take whose key has no row. */
    private static final Lease MISSING = new Lease("", "", 0, 0);
    // rows created but never acquired have no acquired_at yet
    private static final String IDLE =
            "(r.acquiredAt IS NULL OR r.acquiredAt < :idleSince) AND (r.owner IS NULL OR r.expiresAt < :idleSince)";

    private final EntityManagerFactory factory;
    private final EntityTransactions ownTransactions;
    private final EntityRows rows;
    private final DatabaseClock clock;
    private final UnitTransactions transactions;
    private final ConnectionBudget budget;
    private final PoolShortage shortage;
    private final Duration connectionWait;
    private final String readRow;
    private final String handOverIfUnchanged;
    private final String renewIfUnchanged;
    private final String freeIfUnchanged;

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
        this.budget = ConnectionBudget.forPool(connections == null ? 0 : connections.maximumSize());
        this.shortage = connections == null ? null : new PoolShortage(connections);
        this.connectionWait = connectionWait;
        this.readRow = "SELECT r.version, r.token, r.owner, r.expiresAt, " + clock.jpql()
                + " FROM LockRow r WHERE r.key = :key";
        String unchanged = " WHERE r.key = :key AND r.version = :version";
        this.handOverIfUnchanged = "UPDATE LockRow r SET r.owner = :owner, r.holder = :holder, r.token = :token,"
                + " r.acquiredAt = :now, r.expiresAt = :expires, r.version = r.version + 1" + unchanged;
        this.renewIfUnchanged = "UPDATE LockRow r SET r.expiresAt = :expires, r.version = r.version + 1" + unchanged;
        this.freeIfUnchanged = "UPDATE LockRow r SET r.owner = NULL, r.expiresAt = NULL, r.version = r.version + 1"
                + unchanged;
    }

    // ---- pessimistic

    @Override
    public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
        // the provider borrows the connection with the pool's own timeout; only the budget waits here
        CallBounds bounds = CallBounds.forWait(dbWait, Duration.ZERO);
        CallBounds budgetBounds = CallBounds.forWait(dbWait, connectionWait);
        if (!budget.take(key, budgetBounds.borrowNanos())) {
            throw shortage.budgetSpent(key, budgetBounds.borrowWait(), budget);
        }
        EntityManager manager;
        try {
            manager = factory.createEntityManager();
        } catch (RuntimeException | Error failure) {
            budget.giveBack();
            throw failure;
        }
        boolean handedOver = false;
        try {
            transactions.beginHold(manager);
            LockRow row = rows.lockRow(manager, key, bounds);
            if (row == null) {
                // create the row in a short transaction of its own on this manager, then lock it
                transactions.rollbackIfActive(manager);
                rows.createRow(manager, key, bounds);
                transactions.beginHold(manager);
                row = rows.lockRow(manager, key, bounds);
                if (row == null) {
                    return null; // deleted again by a cleanup in between: the caller tries again
                }
            }
            // read after the grant, so that a holder granted meanwhile and rolled back drew an older clock
            Instant now = rows.now(manager, key, bounds);
            if (row.leasedAt(now)) {
                return null; // a live lease holds the key
            }
            long token = DatabaseClock.nextToken(row.getToken(), now);
            row.lockedBy(token, now, holder);
            manager.flush();
            EntityRowHold hold = new EntityRowHold(manager, key, token, transactions.park());
            handedOver = true;
            return hold;
        } catch (RuntimeException failure) {
            if (EntityConflicts.isBusy(failure)) {
                return null;
            }
            throw new LockStoreUnavailableException(key, "pessimistic lock failed", failure);
        } finally {
            if (!handedOver) {
                ownTransactions.end(manager);
                budget.giveBack();
            }
        }
    }

    /**
     * A pessimistic hold: the manager's open transaction, whose commit frees the row lock. A JTA
     * transaction is parked off the thread while the method runs, and taken back for each check and
     * for the release, on whichever thread makes them.
     */
    private final class EntityRowHold implements PessimisticHold {
        private final EntityManager manager;
        private final String key;
        private final long token;
        private UnitTransactions.Parked parked;
        private boolean released;

        public EntityRowHold(EntityManager manager, String key, long token, UnitTransactions.Parked parked) {
            this.manager = manager;
            this.key = key;
            this.token = token;
            this.parked = parked;
        }

        @Override
        public long token() {
            return token;
        }

        // the watchdog's check and the holder's release may come from two threads; an
        // EntityManager serves one at a time
        @Override
        public synchronized boolean isAlive(Duration timeout) {
            if (released) {
                return true;
            }
            try {
                parked.resume();
            } catch (RuntimeException transactionGone) {
                return false; // ended by its transaction manager (a timeout): the row lock is gone
            }
            try {
                manager.createQuery("SELECT r.version FROM LockRow r WHERE r.key = :key")
                        .setParameter("key", key)
                        .setHint(QUERY_TIMEOUT, (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis())))
                        .getResultList();
                return true;
            } catch (RuntimeException sessionGone) {
                return false;
            } finally {
                parked = transactions.park();
            }
        }

        @Override
        public synchronized boolean release() {
            if (released) {
                return false;
            }
            released = true;
            try {
                parked.resume();
                transactions.commit(manager);
                return true;
            } catch (RuntimeException lost) {
                return false;
            } finally {
                ownTransactions.end(manager);
                budget.giveBack();
            }
        }
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

    // ---- optimistic

    @Override
    public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
        CallBounds bounds = CallBounds.forWait(dbWait, Duration.ZERO);
        Lease taken = take(key, owner, holder, lease, bounds);
        if (taken == MISSING) {
            rows.createRow(key, bounds);
            taken = take(key, owner, holder, lease, bounds);
        }
        return taken == MISSING ? null : taken;
    }

    // The take row-locks first and reads the clock after the grant, as a pessimistic acquisition
    // does: a pessimistic holder granted while the take waited may have used its token and been
    // rolled back, and this token must still be higher (a clock read before the wait would not be).
    private Lease take(String key, String owner, String holder, Duration lease, CallBounds bounds) {
        return ownTransactions.inTransaction(key, "taking the lease", bounds, manager -> {
            LockRow row = rows.lockRow(manager, key, bounds);
            if (row == null) {
                return MISSING;
            }
            Instant now = rows.now(manager, key, bounds);
            if (row.leasedAt(now)) {
                return null; // a live lease
            }
            long token = DatabaseClock.nextToken(row.getToken(), now);
            // written at commit, guarded by the version it was read with
            row.leasedTo(owner, holder, token, now, expiry(now, lease));
            manager.flush();
            return new Lease(key, owner, token, row.getVersion());
        }, true);
    }

    @Override
    public Lease renewLease(Lease lease, Duration duration) {
        CallBounds bounds = CallBounds.forRenewal(duration);
        return untilSettled(lease.key(), "renewing the lease", bounds, manager -> {
            Row row = read(manager, lease.key(), bounds);
            if (row == null || !row.liveFor(lease)) {
                return Attempt.settled(null);
            }
            int written = manager.createQuery(renewIfUnchanged)
                    .setParameter("expires", expiry(row.now(), duration))
                    .setParameter("key", lease.key()).setParameter("version", row.version())
                    .setHint(QUERY_TIMEOUT, bounds.statementMillis())
                    .executeUpdate();
            return written == 1 ? Attempt.settled(new Lease(lease.key(), lease.owner(), lease.token(), row.version() + 1))
                    : Attempt.again();
        });
    }

    @Override
    public Lease handOverLease(Lease lease, String newOwner, String holder, Duration duration) {
        try {
            return handOver(lease, newOwner, holder, duration);
        } catch (LockStoreUnavailableException replyLost) {
            // applied or not: a lost commit reply must not leave the row in the successor's name unknown to both
            return successorsLeaseAfter(replyLost, lease.key(), newOwner);
        }
    }

    /** A hand-over's commit reply was lost: the row is the successor's if it was applied. */
    private Lease successorsLeaseAfter(LockStoreUnavailableException replyLost, String key, String newOwner) {
        CallBounds bounds = CallBounds.brief();
        Row row;
        try {
            row = ownTransactions.inTransaction(key, "checking a hand-over", bounds, manager -> read(manager, key, bounds), false);
        } catch (LockStoreUnavailableException stillDown) {
            replyLost.addSuppressed(stillDown);
            throw replyLost;
        }
        if (row == null || !newOwner.equals(row.owner())) {
            throw replyLost;
        }
        return new Lease(key, newOwner, row.token(), row.version());
    }

    private Lease handOver(Lease lease, String newOwner, String holder, Duration duration) {
        CallBounds bounds = CallBounds.brief();
        return untilSettled(lease.key(), "handing the lease over", bounds, manager -> {
            Row row = read(manager, lease.key(), bounds);
            if (row == null || !row.liveFor(lease)) {
                return Attempt.settled(null);
            }
            // the row is this owner's: no pessimistic holder can have drawn a token on it meanwhile
            long token = DatabaseClock.nextToken(row.token(), row.now());
            int written = manager.createQuery(handOverIfUnchanged)
                    .setParameter("owner", newOwner).setParameter("holder", holder).setParameter("token", token)
                    .setParameter("now", row.now()).setParameter("expires", expiry(row.now(), duration))
                    .setParameter("key", lease.key()).setParameter("version", row.version())
                    .setHint(QUERY_TIMEOUT, bounds.statementMillis())
                    .executeUpdate();
            return written == 1 ? Attempt.settled(new Lease(lease.key(), newOwner, token, row.version() + 1))
                    : Attempt.again();
        });
    }

    @Override
    public boolean releaseLease(Lease lease) {
        CallBounds bounds = CallBounds.brief();
        return untilSettled(lease.key(), "releasing the lease", bounds, manager -> {
            Row row = read(manager, lease.key(), bounds);
            if (row == null || !lease.owner().equals(row.owner())) {
                return Attempt.settled(false); // taken over: never touch another owner's row
            }
            boolean live = row.liveFor(lease);
            // an expired row still ours is freed too, though the holder must learn it was lost
            int written = manager.createQuery(freeIfUnchanged)
                    .setParameter("key", lease.key()).setParameter("version", row.version())
                    .setHint(QUERY_TIMEOUT, bounds.statementMillis())
                    .executeUpdate();
            return written == 1 ? Attempt.settled(live) : Attempt.again();
        });
    }

    /** One read and compare-and-set: its answer, or "the version moved, read again". */
    private record Attempt<T>(boolean settled, T value) {
        public static <T> Attempt<T> settled(T value) {
            return new Attempt<>(true, value);
        }

        public static <T> Attempt<T> again() {
            return new Attempt<>(false, null);
        }
    }

    /**
     * Repeats a read and compare-and-set, each in a transaction of its own (a snapshot would show the
     * same row again), until it settles. The core may renew and release one lease at once, so the
     * version can move under a write for a reason that leaves the lease live; a takeover is seen by
     * the next read. Bounded by the call's time.
     */
    private <T> T untilSettled(String key, String what, CallBounds bounds, EntityTransactions.Work<Attempt<T>> attempt) {
        while (true) {
            Attempt<T> outcome;
            try {
                outcome = ownTransactions.inTransaction(key, what, bounds, attempt, false);
            } catch (LockStoreUnavailableException failure) {
                if (!LockConflicts.isWriteConflict(failure)) {
                    throw failure;
                }
                // a concurrent write of the same row won (HSQLDB's serializable transactions say so
                // instead of matching no row; a deadlock victim too): as a moved version, read again
                outcome = Attempt.again();
            }
            if (outcome.settled()) {
                return outcome.value();
            }
            if (bounds.borrowNanos() == 0) {
                throw new LockStoreUnavailableException(key, what + " kept meeting concurrent writes for "
                        + bounds.borrowWait(), null);
            }
        }
    }

    /**
     * A lease's end, rounded up to a whole second: some drivers drop the fraction when they send a
     * time (Connector/J to a MariaDB that reports itself as "5.5.5-10.x" does), and a lease that
     * ended before its holder thought would let a second holder in. Rounded up, it only ends later.
     */
    public static Instant expiry(Instant now, Duration lease) {
        Instant end = now.plus(lease);
        return end.getNano() == 0 ? end : end.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
    }

    /** The row as one query read it, with the database's clock at that moment. */
    private record Row(long version, long token, String owner, Instant expiresAt, Instant now) {
        public boolean free() {
            return owner == null || expiresAt == null || !expiresAt.isAfter(now);
        }

        public boolean liveFor(Lease lease) {
            return lease.owner().equals(owner) && lease.token() == token && expiresAt != null && expiresAt.isAfter(now);
        }
    }

    private Row read(EntityManager manager, String key, CallBounds bounds) {
        List<?> found = manager.createQuery(readRow).setParameter("key", key)
                .setHint(QUERY_TIMEOUT, bounds.statementMillis()).getResultList();
        if (found.isEmpty()) {
            return null;
        }
        Object[] row = (Object[]) found.get(0);
        return new Row(((Number) row[0]).longValue(), ((Number) row[1]).longValue(), (String) row[2],
                (Instant) row[3], clock.instant(row[4]));
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
                .setParameter("idleSince", expiry(idleSince, Duration.ZERO))
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
