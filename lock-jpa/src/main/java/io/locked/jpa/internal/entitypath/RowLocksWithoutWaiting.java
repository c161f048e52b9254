package io.locked.jpa.internal.entitypath;

import io.locked.jpa.LockRow;
import io.locked.jpa.internal.dialect.SharedRowStatements;
import io.locked.spi.PessimisticHold;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PessimisticLockException;
import jakarta.persistence.Query;
import jakarta.persistence.TypedQuery;
import java.util.List;

/**
 * How the JPA path locks a row without waiting and without a statement the database refuses ({@code SKIP
 * LOCKED}), or why it cannot: a read/write lock's shared row beside a hold ({@link PessimisticHold#lockAnotherRow}),
 * shared or exclusive, and, with Hibernate, a key's own row when an acquisition may not wait ({@code lockOwnRow}). With Hibernate
 * ORM, {@code PESSIMISTIC_READ} is a shared row lock on MariaDB, MySQL and PostgreSQL, and its skip-locked hint
 * does the rest. EclipseLink's {@code PESSIMISTIC_READ} locks for update, so with another provider the
 * database's own statement runs as a native query in the hold's transaction. H2, HSQLDB and Derby have no shared
 * row lock. A key's own row on a zero wait: on H2 by its own statement ({@code SKIP LOCKED}, which Hibernate's H2
 * dialect does not write: its lock timeout hint of 0 left the lock waiting out H2's lock timeout, 2 s by default);
 * on HSQLDB and Derby by the lock timeout hint ({@code NOWAIT} where the provider writes it; Derby's wait is its
 * {@code derby.locks.waitTimeout}).
 *
 * @param refusal   why {@code PESSIMISTIC} read/write locks are refused on the unit, or null
 * @param shared    the statement that locks the row shared without waiting, as a native query; null where
 *                  the lock modes do it
 * @param exclusive as {@code shared}, exclusive
 * @param ownRow    the statement that locks the key's own row without waiting and returns it whole, as a native
 *                  query of {@link LockRow}s, where the lock modes cannot; null where they do it or nothing does
 */
public record RowLocksWithoutWaiting(String refusal, String shared, String exclusive, String ownRow) {
    // Hibernate's LockOptions.SKIP_LOCKED: the lock passes over a row another transaction has locked
    private static final int SKIP_LOCKED = -2;

    /**
     * @return locks of no shared row, for the reason given, and of a key's own row by the statement given
     *         ({@link SharedRowStatements#ownRow}), or by the lock timeout hint where it is null
     */
    public static RowLocksWithoutWaiting refused(String reason, String ownRow) {
        return new RowLocksWithoutWaiting(reason, null, null, ownRow);
    }

    /** @return locks through the provider's lock modes (Hibernate ORM) */
    public static RowLocksWithoutWaiting throughLockModes() {
        return new RowLocksWithoutWaiting(null, null, null, null);
    }

    /** @return locks through the database's own statements, as native queries */
    public static RowLocksWithoutWaiting byStatements(SharedRowStatements statements) {
        return new RowLocksWithoutWaiting(null, statements.shared(), statements.exclusive(), null);
    }

    /**
     * Locks the key's row in the manager's open transaction, beside what it holds, without waiting
     * ({@code SKIP LOCKED}). A row it skips is told from a missing one by a plain read.
     */
    PessimisticHold.AnotherRow lock(EntityManager manager, String key, boolean shared, int statementMillis) {
        if (refusal != null) {
            throw new UnsupportedOperationException(refusal);
        }
        Query lock = this.shared == null
                ? skippingLockedRow(manager, key, shared ? LockModeType.PESSIMISTIC_READ : LockModeType.PESSIMISTIC_WRITE)
                : manager.createNativeQuery(shared ? this.shared : exclusive).setParameter(1, key);
        List<?> rows = lock.setHint(EntityRows.QUERY_TIMEOUT, statementMillis).getResultList();
        if (!rows.isEmpty()) {
            return PessimisticHold.AnotherRow.LOCKED;
        }
        return exists(manager, key, statementMillis) ? PessimisticHold.AnotherRow.BUSY : PessimisticHold.AnotherRow.ABSENT;
    }

    /**
     * @return whether this key's own row can be locked here without a statement the database refuses: through
     *         Hibernate's lock modes only. With EclipseLink the database's statement would come first and its
     *         {@code NOWAIT} lock after; that failed the read/write contract on MariaDB under load (a reader slot's
     *         row creation timed out behind it), cause not found, so EclipseLink keeps {@code NOWAIT}.
     */
    boolean locksOwnRowWithoutRefusal() {
        return ownRow != null || refusal == null && shared == null;
    }

    /**
     * Locks the key's own row for update in the manager's open transaction if no other transaction holds it,
     * without waiting and without a statement the database refuses ({@code SKIP LOCKED}, then a plain read
     * where it skipped): a JPA provider logs every statement the database refuses, Hibernate a warning and an
     * error, and a busy key is no incident. Hibernate reads the row as it locks it, in one statement, as its
     * {@code NOWAIT} lock did.
     *
     * @return the row, locked; null where the key has no row
     * @throws PessimisticLockException where another transaction holds the row
     */
    LockRow lockOwnRow(EntityManager manager, String key, int statementMillis) {
        if (!locksOwnRowWithoutRefusal()) {
            throw new UnsupportedOperationException("no skip-locked lock mode here");
        }
        Query lock = ownRow == null ? skippingLockedRow(manager, key, LockModeType.PESSIMISTIC_WRITE)
                : manager.createNativeQuery(ownRow, LockRow.class).setParameter(1, key);
        List<?> rows = lock.setHint(EntityRows.QUERY_TIMEOUT, statementMillis).getResultList();
        if (!rows.isEmpty()) {
            return (LockRow) rows.get(0);
        }
        if (exists(manager, key, statementMillis)) {
            throw new PessimisticLockException("'" + key + "' is row-locked by another transaction");
        }
        return null;
    }

    /** The key's row read in a lock mode of Hibernate's that passes over a row another transaction has locked. */
    private static TypedQuery<LockRow> skippingLockedRow(EntityManager manager, String key, LockModeType mode) {
        return manager.createQuery("SELECT r FROM LockRow r WHERE r.key = :key", LockRow.class)
                .setParameter("key", key)
                .setLockMode(mode)
                .setHint(EntityRows.LOCK_TIMEOUT, SKIP_LOCKED);
    }

    /** A plain read: tells a row that a lock skipped from a missing one. */
    private static boolean exists(EntityManager manager, String key, int statementMillis) {
        Number found = (Number) manager.createQuery("SELECT COUNT(r) FROM LockRow r WHERE r.key = :key")
                .setParameter("key", key)
                .setHint(EntityRows.QUERY_TIMEOUT, statementMillis)
                .getSingleResult();
        return found.longValue() > 0;
    }
}
