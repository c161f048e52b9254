package io.locked.jpa.internal.connection;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.util.Optional;
import java.util.function.Supplier;
import org.hibernate.SessionFactory;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.resource.jdbc.spi.PhysicalConnectionHandlingMode;

/**
 * Hibernate sessions for the lock's own transactions that keep their connection until the
 * transaction completes, where the unit gives it back after each statement (the default of a JTA
 * unit, WildFly's among them). Hibernate 7 bounds a row lock's wait on the connection: it sets the
 * lock timeout before the locking query and resets it after the query's result was read, and by
 * then a connection given back after the statement is a closed handle ("Unable to set lock-timeout
 * setting on JDBC connection [Connection is closed]"). Only loaded when Hibernate is present
 * ({@link HibernatePresence}).
 */
public final class HibernateSessions {
    private HibernateSessions() {
    }

    /** @return an opener of such sessions, or empty where the unit's own sessions keep their connection already */
    public static Optional<Supplier<EntityManager>> holdingConnections(EntityManagerFactory factory) {
        SessionFactoryImplementor unit = HibernateConnections.sessionFactory(factory);
        PhysicalConnectionHandlingMode unitMode = unit.getSessionFactoryOptions().getPhysicalConnectionHandlingMode();
        if (unitMode != PhysicalConnectionHandlingMode.DELAYED_ACQUISITION_AND_RELEASE_AFTER_STATEMENT) {
            return Optional.empty();
        }
        return Optional.of(() -> open(unit));
    }

    // what createEntityManager() builds (a session that joins the thread's transaction), but for the
    // release; Hibernate 7 deprecates this setter for one that Hibernate 6 lacks. Called through the
    // public SessionFactory: SessionFactoryImplementor.withOptions() returns another type on each
    // version, and one jar runs on both
    @SuppressWarnings("deprecation")
    private static EntityManager open(SessionFactory sessions) {
        return sessions.withOptions()
                .autoJoinTransactions(true)
                .connectionHandlingMode(PhysicalConnectionHandlingMode.DELAYED_ACQUISITION_AND_RELEASE_BEFORE_TRANSACTION_COMPLETION)
                .openSession();
    }
}
