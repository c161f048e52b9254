package io.locked.jpa.internal.entitypath;

import io.locked.jpa.internal.dialect.SharedRowStatements;
import io.locked.spi.PessimisticHold;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.Query;
import java.util.List;

/**
 * How the JPA path locks a read/write lock's shared row beside a hold ({@link PessimisticHold#lockAnotherRow}),
 * or why it cannot. With Hibernate ORM, {@code PESSIMISTIC_READ} is a shared row lock on MariaDB, MySQL and
 * PostgreSQL. EclipseLink's {@code PESSIMISTIC_READ} locks for update, so with another provider the database's
 * own statement runs as a native query in the hold's transaction. H2, HSQLDB and Derby have no shared row lock.
 *
 * @param refusal   why {@code PESSIMISTIC} read/write locks are refused on the unit, or null
 * @param shared    the statement that locks the row shared without waiting, as a native query; null where
 *                  the lock modes do it
 * @param exclusive as {@code shared}, exclusive
 */
public record SharedRowLocks(String refusal, String shared, String exclusive) {
    // Hibernate's LockOptions.SKIP_LOCKED: the lock passes over a row another transaction has locked
    private static final int SKIP_LOCKED = -2;

    /** @return locks of no shared row, for the reason given */
    public static SharedRowLocks refused(String reason) {
        return new SharedRowLocks(reason, null, null);
    }

    /** @return locks through the provider's lock modes (Hibernate ORM) */
    public static SharedRowLocks throughLockModes() {
        return new SharedRowLocks(null, null, null);
    }

    /** @return locks through the database's own statements, as native queries */
    public static SharedRowLocks byStatements(SharedRowStatements statements) {
        return new SharedRowLocks(null, statements.shared(), statements.exclusive());
    }

    /**
     * Locks the key's row in the manager's open transaction, beside what it holds, without waiting
     * ({@code SKIP LOCKED}). A row it skips is told from a missing one by a plain read.
     */
    PessimisticHold.AnotherRow lock(EntityManager manager, String key, boolean shared, int statementMillis) {
        if (refusal != null) {
            throw new UnsupportedOperationException(refusal);
        }
        Query lock;
        if (this.shared == null) {
            lock = manager.createQuery("SELECT r FROM LockRow r WHERE r.key = :key")
                    .setParameter("key", key)
                    .setLockMode(shared ? LockModeType.PESSIMISTIC_READ : LockModeType.PESSIMISTIC_WRITE)
                    .setHint(EntityRows.LOCK_TIMEOUT, SKIP_LOCKED);
        } else {
            lock = manager.createNativeQuery(shared ? this.shared : exclusive).setParameter(1, key);
        }
        List<?> rows = lock.setHint(EntityRows.QUERY_TIMEOUT, statementMillis).getResultList();
        if (!rows.isEmpty()) {
            return PessimisticHold.AnotherRow.LOCKED;
        }
        Number found = (Number) manager.createQuery("SELECT COUNT(r) FROM LockRow r WHERE r.key = :key")
                .setParameter("key", key)
                .setHint(EntityRows.QUERY_TIMEOUT, statementMillis)
                .getSingleResult();
        return found.longValue() > 0 ? PessimisticHold.AnotherRow.BUSY : PessimisticHold.AnotherRow.ABSENT;
    }
}
