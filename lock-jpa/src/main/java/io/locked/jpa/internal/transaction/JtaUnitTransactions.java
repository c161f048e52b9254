package io.locked.jpa.internal.transaction;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.Status;
import jakarta.transaction.SystemException;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;

/**
 * The lock's own transactions on a container-managed (JTA) persistence unit, begun and ended through
 * the {@code TransactionManager}. They begin only on a thread with no transaction: the lock store has
 * set the caller's aside ({@link CallerTransaction}), and a nested begin would fail.
 *
 * <p>A pessimistic hold's transaction gets a timeout of {@value #HOLD_TIMEOUT_SECONDS} seconds instead
 * of the server's default (60 s on Quarkus, 300 s on WildFly): a transaction manager that rolls it
 * back frees the row lock while the method still runs. The watchdog's check of the hold then fails and
 * the holder learns that it lost the lock, but another JVM may already have entered.
 */
public final class JtaUnitTransactions implements UnitTransactions {
    /** A day: longer than any critical section a pessimistic lock is meant for. */
    static final int HOLD_TIMEOUT_SECONDS = 24 * 60 * 60;
    private final TransactionManager transactions;
    private final ThreadTransactionTimeout threadTimeout;

    JtaUnitTransactions(TransactionManager transactions) {
        this.transactions = transactions;
        this.threadTimeout = ThreadTransactionTimeout.of(transactions);
    }

    @Override
    public void begin(EntityManager manager) {
        begin(manager, 0);
    }

    @Override
    public void beginHold(EntityManager manager) {
        begin(manager, HOLD_TIMEOUT_SECONDS);
    }

    /** @param timeoutSeconds the transaction's timeout, 0 for the manager's default */
    private void begin(EntityManager manager, int timeoutSeconds) {
        try {
            int applications = threadTimeout.read(transactions);
            transactions.setTransactionTimeout(timeoutSeconds);
            try {
                transactions.begin();
            } finally {
                // the thread's later transactions get the application's timeout again, or the default where it cannot be read
                transactions.setTransactionTimeout(applications);
            }
        } catch (Exception refused) {
            throw failure("beginning the lock's transaction", refused);
        }
        manager.joinTransaction();
    }

    @Override
    public void commit(EntityManager manager) {
        try {
            transactions.commit();
        } catch (Exception refused) {
            // a failed flush at commit (a lost version check, a lock wait) is the cause of the rollback
            throw failure("committing the lock's transaction", refused);
        }
    }

    @Override
    public void rollbackIfActive(EntityManager manager) {
        try {
            if (transactions.getStatus() != Status.STATUS_NO_TRANSACTION) {
                transactions.rollback();
            }
        } catch (Exception refused) {
            throw failure("rolling back the lock's transaction", refused);
        }
    }

    /** A transaction manager may log a resource's failed rollback and report none. */
    @Override
    public boolean rollbackTellsLostSession() {
        return false;
    }

    @Override
    public Parked park() {
        Transaction own;
        try {
            own = transactions.suspend();
        } catch (SystemException refused) {
            throw failure("setting the hold's transaction aside", refused);
        }
        return () -> {
            try {
                transactions.resume(own);
            } catch (Exception refused) {
                throw failure("taking the hold's transaction back", refused);
            }
        };
    }

    private static PersistenceException failure(String what, Exception cause) {
        return new PersistenceException(what + " failed: " + cause, cause);
    }
}
