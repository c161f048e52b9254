package io.locked.jpa.internal.dialect;

import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.transaction.UnitTransactions;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;

/**
 * Refuses, at start-up, an HSQLDB on which the JPA path would not exclude with bounded waits. Only
 * MVCC locks rows rather than tables, and there only a write locks a row ({@code FOR UPDATE} takes
 * no lock): under READ COMMITTED the token's write of a second acquirer waits, without bound, for the
 * holder's transaction to end, while under SERIALIZABLE (or REPEATABLE READ, which HSQLDB runs as
 * SERIALIZABLE) it fails at once and the acquirer tries again within its wait. LOCKS and MVLOCKS
 * lock the whole table, so one held key blocks every other, and HSQLDB's query timeout does not end
 * such a wait.
 */
public final class HsqldbSettingsCheck {
    static final String NEEDED = "hsqldb.tx=mvcc and hsqldb.tx_level=serializable on the database's URL"
            + " (or SET DATABASE TRANSACTION CONTROL MVCC and SET DATABASE DEFAULT ISOLATION LEVEL SERIALIZABLE)";

    private HsqldbSettingsCheck() {
    }

    /**
     * @param factory     the persistence unit of the lock table
     * @param connections its connections, or null where Locked cannot reach them
     * @param transactions how the lock runs its own transactions on the unit
     * @throws IllegalStateException if the unit's database is HSQLDB, set otherwise
     */
    public static void requireRowLocks(EntityManagerFactory factory, LockConnections connections, UnitTransactions transactions) {
        if (!UnitDatabaseName.names(factory.getProperties(), connections, "jdbc:hsqldb:", "hsqldialect", "hsql")) {
            return;
        }
        EntityManager manager = factory.createEntityManager();
        try {
            transactions.begin(manager);
            // as the lock's own transactions see them: the database's control, this connection's isolation
            Object[] settings = (Object[]) manager.createNativeQuery(
                    "SELECT TRANSACTION_CONTROL(), ISOLATION_LEVEL() FROM (VALUES (0))").getSingleResult();
            String control = String.valueOf(settings[0]);
            String isolation = String.valueOf(settings[1]);
            if (!"MVCC".equalsIgnoreCase(control) || !"SERIALIZABLE".equalsIgnoreCase(isolation)) {
                throw new IllegalStateException("Locked cannot lock on this HSQLDB (transaction control " + control
                        + ", isolation " + isolation + "): set " + NEEDED + ", or give the lock's persistence unit"
                        + " connections at REPEATABLE READ or SERIALIZABLE. "
                        + (!"MVCC".equalsIgnoreCase(control)
                        ? control + " locks the whole table, so one held key would block every other, without bound"
                        : "Under " + isolation + " an acquirer would wait for a holder's commit without bound"));
            }
        } finally {
            transactions.rollbackIfActive(manager);
            manager.close();
        }
    }
}
