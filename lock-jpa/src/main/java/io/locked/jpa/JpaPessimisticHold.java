package io.locked.jpa;

import io.locked.spi.PessimisticHold;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityTransaction;
import java.util.logging.Level;
import java.util.logging.Logger;

/** The lock's own transaction, open from acquisition to release. */
final class JpaPessimisticHold implements PessimisticHold {
    private static final Logger LOG = Logger.getLogger(JpaPessimisticHold.class.getName());
    private final EntityManager entityManager;
    private final EntityTransaction transaction;
    private final long token;

    JpaPessimisticHold(EntityManager entityManager, EntityTransaction transaction, long token) {
        this.entityManager = entityManager;
        this.transaction = transaction;
        this.token = token;
    }

    @Override
    public long token() {
        return token;
    }

    @Override
    public boolean release() {
        try {
            transaction.commit();
            return true;
        } catch (RuntimeException lost) {
            LOG.log(Level.WARNING, "Commit of a pessimistic lock failed; the database had ended its transaction", lost);
            Transactions.rollbackQuietly(transaction);
            return false;
        } finally {
            entityManager.close();
        }
    }
}
