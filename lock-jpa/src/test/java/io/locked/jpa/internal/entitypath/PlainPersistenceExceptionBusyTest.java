package io.locked.jpa.internal.entitypath;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.persistence.PersistenceException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * Since Hibernate 7.3 a lock wait that ran out and marked the transaction for rollback is a plain
 * {@code PersistenceException}, not a {@code LockTimeoutException}: "busy" is read from the
 * database's error under it, and a store failure in the same wrapper stays a failure.
 */
class PlainPersistenceExceptionBusyTest {
    private static PersistenceException plain(String state, int code) {
        return new PersistenceException("could not execute query",
                new SQLException("from the driver", state, code));
    }

    @Test
    void aLockWaitThatRanOutIsBusyInAPlainPersistenceException() {
        assertTrue(EntityConflicts.isBusy(plain("55P03", 0)), "PostgreSQL lock_not_available");
        assertTrue(EntityConflicts.isBusy(plain("HY000", 1205)), "MariaDB and MySQL lock wait timeout");
        assertTrue(EntityConflicts.isBusy(plain("HYT00", 50200)), "H2 lock timeout");
        assertTrue(EntityConflicts.isBusy(plain("57014", 0)), "PostgreSQL statement cancelled by its query timeout");
    }

    @Test
    void aStoreFailureInAPlainPersistenceExceptionIsNotBusy() {
        assertFalse(EntityConflicts.isBusy(plain("08006", 0)), "a connection failure");
        assertFalse(EntityConflicts.isBusy(plain("42P01", 0)), "a missing table");
    }
}
