package io.locked.jpa.internal.entitypath;

import io.locked.jpa.internal.connection.HibernatePresence;
import io.locked.jpa.internal.connection.HibernateSessions;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.util.function.Supplier;

/**
 * Opens the JPA path's entity managers: the unit's own, except on a Hibernate unit that gives its
 * connection back after each statement, where they keep it for their transaction
 * ({@link HibernateSessions}): a row lock's wait is bounded on that connection.
 */
final class EntityManagers {
    private final Supplier<EntityManager> opener;

    private EntityManagers(Supplier<EntityManager> opener) {
        this.opener = opener;
    }

    static EntityManagers of(EntityManagerFactory factory) {
        if (HibernatePresence.isProviderOf(factory)) {
            return new EntityManagers(HibernateSessions.holdingConnections(factory).orElse(factory::createEntityManager));
        }
        return new EntityManagers(factory::createEntityManager);
    }

    EntityManager open() {
        return opener.get();
    }
}
