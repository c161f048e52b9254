package io.locked.jpa.cdi;

import io.locked.jpa.JpaLockRepository;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.transaction.TransactionManager;

/**
 * Hands the container's {@code TransactionManager} bean (Quarkus has one) to the lock store, where
 * there is one. Only loaded when the Jakarta Transactions API is on the class path; without a bean,
 * the store asks the JPA provider and JNDI itself.
 */
final class CdiTransactionManager {
    private CdiTransactionManager() {
    }

    static boolean apiPresent() {
        try {
            Class.forName("jakarta.transaction.TransactionManager", false, CdiTransactionManager.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    static void handTo(JpaLockRepository.Builder builder) {
        Instance<TransactionManager> bean = CDI.current().select(TransactionManager.class);
        if (bean.isResolvable()) {
            builder.transactionManager(bean.get());
        }
    }
}
