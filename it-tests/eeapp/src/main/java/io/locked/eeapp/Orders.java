package io.locked.eeapp;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.Transactional;
import java.util.concurrent.CompletableFuture;
import javax.naming.InitialContext;

/** A caller with a container transaction of its own (CDI @Transactional), around a @Locked call. */
@ApplicationScoped
public class Orders {
    @Inject
    EntityManager entityManager;
    @Inject
    Counter counter;
    // the standard view of the thread's transaction: a bean on Quarkus and WildFly, else its standard name
    @Inject
    Instance<TransactionSynchronizationRegistry> registryBean;

    /**
     * Writes an order in the caller's transaction, counts it under the lock, and reports what it saw of
     * its own transaction and of the committed count before it ends.
     *
     * @param rollBack whether the caller then rolls back (by throwing)
     */
    @Transactional(rollbackOn = CallerRolledBack.class)
    public String place(String orderId, String counterName, boolean rollBack) throws Exception {
        TransactionSynchronizationRegistry transactions = registryBean.isResolvable() ? registryBean.get()
                : (TransactionSynchronizationRegistry) new InitialContext().lookup("java:comp/TransactionSynchronizationRegistry");
        Object caller = transactions.getTransactionKey();
        entityManager.persist(new OrderRow(orderId));
        long counted = counter.incrementPessimistic(counterName);
        // what another transaction sees now, while the caller's is still open
        long committed = CompletableFuture.supplyAsync(() -> counter.value(counterName)).get();
        String seen = "same=" + caller.equals(transactions.getTransactionKey()) + " status=" + transactions.getTransactionStatus()
                + " counted=" + counted + " committed=" + committed;
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
        public CallerRolledBack(String seen) {
            super(seen, null, false, false);
        }
    }

}
