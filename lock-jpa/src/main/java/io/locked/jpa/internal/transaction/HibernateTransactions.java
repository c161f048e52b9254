package io.locked.jpa.internal.transaction;

import io.locked.jpa.internal.connection.HibernateConnections;
import jakarta.persistence.EntityManagerFactory;
import jakarta.transaction.TransactionManager;
import java.util.Optional;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.transaction.jta.platform.spi.JtaPlatform;
import org.hibernate.resource.transaction.spi.TransactionCoordinatorBuilder;

/**
 * What a Hibernate unit says about JTA: whether it is a JTA unit, and the transaction manager of its
 * JTA platform (WildFly's, Quarkus', Narayana's, the one the application configured). Only loaded when
 * Hibernate is present. A JTA unit must be asked here: Hibernate hands out {@code getTransaction()} on
 * JTA units too, and its {@code begin()} would join the caller's transaction.
 */
public final class HibernateTransactions {
    private HibernateTransactions() {
    }

    /** @return whether the unit is JTA; empty where its provider is not Hibernate */
    static Optional<Boolean> isJta(EntityManagerFactory factory) {
        return sessionFactory(factory).map(session -> session.getServiceRegistry()
                .requireService(TransactionCoordinatorBuilder.class).isJta());
    }

    /** @return the transaction manager of the unit's JTA platform, if it has one */
    static Optional<TransactionManager> transactionManager(EntityManagerFactory factory) {
        return sessionFactory(factory).map(session -> session.getServiceRegistry().getService(JtaPlatform.class))
                .map(JtaPlatform::retrieveTransactionManager);
    }

    private static Optional<SessionFactoryImplementor> sessionFactory(EntityManagerFactory factory) {
        try {
            return Optional.of(HibernateConnections.sessionFactory(factory));
        } catch (IllegalStateException otherProvider) {
            return Optional.empty();
        }
    }
}
