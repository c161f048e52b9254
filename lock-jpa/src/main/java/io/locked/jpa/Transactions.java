package io.locked.jpa;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.EntityTransaction;
import java.util.function.Function;

/** Short transactions of the lock's own, never the caller's. */
final class Transactions {
    private Transactions() {
    }

    static <T> T inNewTransaction(EntityManagerFactory factory, Function<EntityManager, T> work) {
        EntityManager entityManager = factory.createEntityManager();
        EntityTransaction transaction = entityManager.getTransaction();
        try {
            transaction.begin();
            T result = work.apply(entityManager);
            transaction.commit();
            return result;
        } catch (RuntimeException failure) {
            rollbackQuietly(transaction);
            throw failure;
        } finally {
            entityManager.close();
        }
    }

    static void rollbackQuietly(EntityTransaction transaction) {
        try {
            if (transaction.isActive()) {
                transaction.rollback();
            }
        } catch (RuntimeException ignored) {
            // the connection is already gone; closing the EntityManager returns it to the pool
        }
    }
}
