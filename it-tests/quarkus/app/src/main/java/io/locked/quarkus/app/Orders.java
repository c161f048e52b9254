package io.locked.quarkus.app;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.SystemException;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.Transactional;

/** A caller with a container transaction of its own, around a @Locked call. */
@ApplicationScoped
public class Orders {
    @Inject
    EntityManager entityManager;
    @Inject
    TransactionManager transactions;
    @Inject
    Counter counter;

    /** What the caller saw of its own transaction around the locked call. */
    public record Seen(boolean sameTransactionAfter, int statusAfter, long counted, long committedBeforeCallerEnds) {
    }

    /**
     * Writes an order in the caller's transaction, counts it under the lock, and looks at its own
     * transaction and at the committed count before it ends.
     *
     * @param rollBack whether the caller then rolls back (by throwing)
     */
    @Transactional(rollbackOn = CallerRolledBack.class)
    public Seen place(String orderId, String counterName, boolean rollBack, java.util.function.LongSupplier committedCount)
            throws SystemException, CallerRolledBack {
        Transaction caller = transactions.getTransaction();
        OrderRow order = new OrderRow();
        order.id = orderId;
        entityManager.persist(order);
        long counted = counter.incrementPessimistic(counterName);
        Seen seen = new Seen(transactions.getTransaction() == caller, transactions.getStatus(), counted,
                committedCount.getAsLong());
        if (rollBack) {
            throw new CallerRolledBack(seen);
        }
        return seen;
    }

    @Transactional
    public boolean exists(String orderId) {
        return entityManager.find(OrderRow.class, orderId) != null;
    }

    /** The caller's decision to roll back, carrying what it saw. */
    public static final class CallerRolledBack extends Exception {
        public final transient Seen seen;

        public CallerRolledBack(Seen seen) {
            super("the caller rolls back", null, false, false);
            this.seen = seen;
        }
    }
}
