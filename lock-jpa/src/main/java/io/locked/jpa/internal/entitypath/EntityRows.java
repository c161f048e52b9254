package io.locked.jpa.internal.entitypath;

import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.LockRow;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.transaction.UnitTransactions;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import java.time.Instant;
import java.util.List;

/**
 * A key's lock row as every part of the JPA path reaches it: row-locked with {@code PESSIMISTIC_WRITE},
 * the database's clock read beside it, and created free where it is missing.
 */
final class EntityRows {
    static final String LOCK_TIMEOUT = "jakarta.persistence.lock.timeout";
    static final String QUERY_TIMEOUT = "jakarta.persistence.query.timeout";
    /** A free row, as {@code new LockRow(key)} persists it, in the columns every database's table has. */
    private static final String INSERT_FREE_ROW = "INSERT INTO " + LockRow.TABLE + " (lock_key, version, token) VALUES (?, 0, 0)";
    // a cleanup never waits behind a holder: it skips a row that is locked right now
    static final int NO_WAIT = 0;

    private final EntityManagers managers;
    private final DatabaseClock clock;
    private final UnitTransactions transactions;
    private final EntityTransactions ownTransactions;
    private final String readClock;
    private final boolean wholeSecondWaits;
    private final RowLocksWithoutWaiting withoutWaiting;

    /**
     * @param withoutWaiting how a row is locked without waiting, where the database has a statement for it
     */
    EntityRows(EntityManagers managers, DatabaseClock clock, UnitTransactions transactions,
               EntityTransactions ownTransactions, boolean wholeSecondWaits, RowLocksWithoutWaiting withoutWaiting) {
        this.managers = managers;
        this.clock = clock;
        this.transactions = transactions;
        this.ownTransactions = ownTransactions;
        this.wholeSecondWaits = wholeSecondWaits;
        this.withoutWaiting = withoutWaiting;
        this.readClock = "SELECT " + clock.jpql() + " FROM LockRow r WHERE r.key = :key";
    }

    /**
     * {@code PESSIMISTIC_WRITE} on the key's row, the wait bounded by the lock timeout hint and, where
     * a provider or database ignores that hint (Hibernate on PostgreSQL, for one), by a query timeout.
     * A query rather than {@code find}: providers apply a query timeout to queries. No wait, where the
     * database can: {@code SKIP LOCKED} rather than {@code NOWAIT}, whose refusal of a busy row the
     * provider would log ({@link RowLocksWithoutWaiting#lockOwnRow}).
     */
    LockRow lockRow(EntityManager manager, String key, CallBounds bounds) {
        int waitMillis = providerWait(bounds.remainingWaitMillis(), wholeSecondWaits);
        return waitMillis == NO_WAIT ? lockRowNow(manager, key) : lockRow(manager, key, waitMillis);
    }

    /**
     * {@code PESSIMISTIC_WRITE} on the key's row without waiting: {@code SKIP LOCKED} where the database can
     * ({@link RowLocksWithoutWaiting#lockOwnRow}), else the lock timeout hint of none. An inspection tries a
     * row this way too: on H2 the hint alone waited out the database's lock timeout per held row. (The cleanup
     * keeps the hint: on H2 the rows of its batch that ran out of lock wait stay locked until the pool has closed
     * the connection, which that wait gives it time to do.)
     *
     * @return the row, locked; null where the key has no row
     * @throws RuntimeException a busy failure ({@link EntityConflicts#isBusy}) where another transaction holds it
     */
    LockRow lockRowNow(EntityManager manager, String key) {
        return withoutWaiting.locksOwnRowWithoutRefusal() ? withoutWaiting.lockOwnRow(manager, key, statementMillis(NO_WAIT))
                : lockRow(manager, key, NO_WAIT);
    }

    /**
     * The lock timeout hint for a wait: where the provider waits in whole seconds, the whole seconds
     * of it, rounded down (under a second: none, and the caller tries again for the rest). Hibernate 7
     * rounds a hint up (1.5 s waited 2 s, 0.4 s a second), Hibernate 6 down.
     */
    static int providerWait(long waitMillis, boolean wholeSeconds) {
        long wait = wholeSeconds ? waitMillis - waitMillis % 1000 : waitMillis;
        return (int) Math.min(Integer.MAX_VALUE, wait);
    }

    static LockRow lockRow(EntityManager manager, String key, int waitMillis) {
        List<LockRow> rows = manager.createQuery("SELECT r FROM LockRow r WHERE r.key = :key", LockRow.class)
                .setParameter("key", key)
                .setLockMode(LockModeType.PESSIMISTIC_WRITE)
                .setHint(LOCK_TIMEOUT, waitMillis)
                .setHint(QUERY_TIMEOUT, statementMillis(waitMillis))
                .getResultList();
        return rows.isEmpty() ? null : rows.get(0);
    }

    /** The database's clock, read in the manager's transaction. */
    Instant now(EntityManager manager, String key, CallBounds bounds) {
        return clock.instant(manager.createQuery(readClock).setParameter("key", key)
                .setHint(QUERY_TIMEOUT, bounds.statementMillis()).getSingleResult());
    }

    /**
     * Creates the key's row with a manager of its own; a row held by another transaction is left to it.
     *
     * @return false where another transaction kept the row's place busy for the wait
     */
    boolean createRow(String key, CallBounds bounds) {
        EntityManager manager = managers.open();
        try {
            createRow(manager, key, bounds);
            return true;
        } catch (RuntimeException failure) {
            if (!EntityConflicts.isBusy(failure)) {
                throw new LockStoreUnavailableException(key, "creating the lock row failed", failure);
            }
            return false;
        } finally {
            ownTransactions.end(manager);
        }
    }

    /**
     * Inserts a free row for the key in a transaction of its own; a concurrent creation of the same key is fine.
     * A native statement, not {@code persist}: the insert waits for another transaction's uncommitted row of
     * the key, and only a query takes a timeout (a flush has none: on PostgreSQL, which has no lock wait
     * bound by default, such a wait lasted as long as the other transaction).
     */
    void createRow(EntityManager manager, String key, CallBounds bounds) {
        try {
            transactions.begin(manager);
            manager.createNativeQuery(INSERT_FREE_ROW).setParameter(1, key)
                    .setHint(QUERY_TIMEOUT, bounds.statementMillis()).executeUpdate();
            transactions.commit(manager);
        } catch (RuntimeException raceOrFailure) {
            if (!EntityConflicts.isDuplicate(raceOrFailure)) {
                // the first failure stands: after a lock wait that ran out on H2 (an SQLTimeoutException)
                // HikariCP has closed the connection's handle, and the rollback fails too
                rollBackAfter(manager, raceOrFailure);
                throw raceOrFailure;
            }
            transactions.rollbackIfActive(manager);
        } finally {
            // the persisted instance is detached either way; the lock reads the row afresh
            manager.clear();
        }
    }

    private void rollBackAfter(EntityManager manager, RuntimeException failure) {
        try {
            transactions.rollbackIfActive(manager);
        } catch (RuntimeException notRolledBack) {
            failure.addSuppressed(notRolledBack);
        }
    }

    /** A statement's bound: the lock wait it was given plus the allowance of a healthy statement. */
    static int statementMillis(long waitMillis) {
        return (int) Math.min(Integer.MAX_VALUE, waitMillis + CallBounds.STATEMENT_ALLOWANCE.toMillis());
    }
}
