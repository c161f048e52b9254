package io.locked.jpa.internal.entitypath;

import io.locked.jpa.internal.connection.LockConflicts;
import jakarta.persistence.EntityExistsException;
import jakarta.persistence.LockTimeoutException;
import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.PessimisticLockException;
import jakarta.persistence.QueryTimeoutException;
import java.sql.SQLException;

/**
 * Tells, from what a JPA provider throws, another transaction's hold on a row or its creation of the
 * same row apart from a failure of the store.
 */
final class EntityConflicts {
    /**
     * PostgreSQL's answer to a statement its query timeout cancelled. This path bounds its lock waits, and a
     * row creation's wait for another transaction's uncommitted insert of the key, by query timeouts:
     * Hibernate 6 reports the cancel as a {@code QueryTimeoutException}, Hibernate 7 under JTA as a plain
     * {@code PersistenceException} (seen: a reader slot's creation in {@code tryAcquire} told as the store
     * unavailable, where it is busy).
     */
    private static final String QUERY_CANCELED = "57014";

    private EntityConflicts() {
    }

    /** Another transaction holds the row: a lock wait that ran out, or a lost version check. */
    static boolean isBusy(Throwable failure) {
        if (LockConflicts.isFailure(failure)) {
            return false;
        }
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof LockTimeoutException || t instanceof PessimisticLockException
                    || t instanceof QueryTimeoutException || t instanceof OptimisticLockException
                    || t instanceof SQLException sql && QUERY_CANCELED.equals(sql.getSQLState())) {
                return true;
            }
        }
        return LockConflicts.isBusy(failure);
    }

    /** A concurrent creation of the same key's row. */
    static boolean isDuplicate(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof EntityExistsException) {
                return true;
            }
            if (t instanceof SQLException sql && LockConflicts.isDuplicate(sql)) {
                return true;
            }
        }
        return false;
    }
}
