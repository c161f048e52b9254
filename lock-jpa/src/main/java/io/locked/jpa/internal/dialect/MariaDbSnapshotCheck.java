package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockStatements;
import io.locked.jpa.internal.transaction.UnitTransactions;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceException;

/**
 * Refuses, at start-up, the JPA path on a MariaDB whose sessions run with {@code innodb_snapshot_isolation=ON}
 * (the default from 11.8 on). There a locking read or a write of a row changed since the transaction's snapshot
 * fails with error 1020 and ends the transaction. The JPA path reads the database clock in a pessimistic hold's
 * transaction, which fixes its snapshot; a read/write lock's shared row created by a racing JVM after that then
 * fails the hold's second row lock, and the acquisition with it, as a store failure where it should be busy.
 * (Such a hold counts as lost, so that is no longer a safety matter: it once broke the fencing-token order.)
 * The native path, MariaDB's default, passes the whole contract with the switch on.
 */
public final class MariaDbSnapshotCheck {
    private MariaDbSnapshotCheck() {
    }

    /**
     * @param factory      the persistence unit of the lock table, on MariaDB
     * @param transactions how the lock runs its own transactions on the unit
     * @throws IllegalStateException if the unit's sessions run under snapshot isolation
     */
    public static void requireSnapshotIsolationOff(EntityManagerFactory factory, UnitTransactions transactions) {
        if (snapshotIsolation(factory, transactions)) {
            throw new IllegalStateException("Locked cannot lock through JPA (" + LockStatements.KEY + "=jpa) on this"
                    + " MariaDB: its sessions run with innodb_snapshot_isolation=ON (the default from MariaDB 11.8),"
                    + " which the JPA path does not support yet. Use the native statements (" + LockStatements.KEY
                    + "=native, the default on MariaDB when Locked reaches the unit's connections), or turn the"
                    + " switch off for the lock unit's sessions (for Connector/J:"
                    + " sessionVariables=innodb_snapshot_isolation=OFF on the JDBC URL)");
        }
    }

    /** As the lock's own transactions see it; a server without the switch (before 10.6.18) has it off. */
    private static boolean snapshotIsolation(EntityManagerFactory factory, UnitTransactions transactions) {
        EntityManager manager = factory.createEntityManager();
        try {
            transactions.begin(manager);
            Object value = manager.createNativeQuery("SELECT @@SESSION.innodb_snapshot_isolation").getSingleResult();
            return value != null && !"0".equals(value.toString()) && !"OFF".equalsIgnoreCase(value.toString())
                    && !"false".equalsIgnoreCase(value.toString());
        } catch (PersistenceException failed) {
            if (unknownVariable(failed)) {
                return false;
            }
            throw failed;
        } finally {
            transactions.rollbackIfActive(manager);
            manager.close();
        }
    }

    /** MariaDB's ER_UNKNOWN_SYSTEM_VARIABLE (1193), somewhere in the provider's chain of causes. */
    private static boolean unknownVariable(Throwable failed) {
        for (Throwable cause = failed; cause != null; cause = cause.getCause()) {
            if (cause instanceof java.sql.SQLException sql && sql.getErrorCode() == 1193) {
                return true;
            }
        }
        return false;
    }
}
