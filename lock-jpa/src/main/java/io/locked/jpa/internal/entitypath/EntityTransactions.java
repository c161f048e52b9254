package io.locked.jpa.internal.entitypath;

import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.transaction.UnitTransactions;
import jakarta.persistence.EntityManager;
import java.util.function.Predicate;

/**
 * Runs a step of the JPA path in an {@code EntityManager} and a transaction of its own, and ends
 * each manager so that its connection goes back to the pool.
 */
final class EntityTransactions {
    private final EntityManagers managers;
    private final UnitTransactions transactions;

    EntityTransactions(EntityManagers managers, UnitTransactions transactions) {
        this.managers = managers;
        this.transactions = transactions;
    }

    interface Work<T> {
        T run(EntityManager manager);
    }

    /**
     * Runs work in a transaction of its own and commits it.
     *
     * @param busyAnswersNull whether a row held by another transaction (a lock wait that ran out, a
     *                        lost compare-and-set at commit) answers null rather than failing
     */
    <T> T inTransaction(String key, String what, CallBounds bounds, Work<T> work, boolean busyAnswersNull) {
        return inTransaction(key, what, work, busyAnswersNull, result -> true);
    }

    /**
     * Runs work in a transaction of its own, and commits it if its result says so; else the
     * transaction is rolled back when the manager ends.
     */
    <T> T inTransaction(String key, String what, Work<T> work, boolean busyAnswersNull, Predicate<T> commits) {
        EntityManager manager = managers.open();
        try {
            transactions.begin(manager);
            T result = work.run(manager);
            if (commits.test(result)) {
                transactions.commit(manager);
            }
            return result;
        } catch (RuntimeException failure) {
            if (busyAnswersNull && EntityConflicts.isBusy(failure)) {
                return null;
            }
            throw new LockStoreUnavailableException(key, what + " failed", failure);
        } finally {
            end(manager);
        }
    }

    /** Rolls back what is still open and closes the manager, which gives its connection back. */
    void end(EntityManager manager) {
        try {
            transactions.rollbackIfActive(manager);
        } catch (RuntimeException alreadyGone) {
            // the connection died with the transaction; closing still gives it back to the pool
        } finally {
            manager.close();
        }
    }
}
