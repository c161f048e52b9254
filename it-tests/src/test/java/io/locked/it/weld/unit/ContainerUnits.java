package io.locked.it.weld.unit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Named;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;

/**
 * Persistence units as a container offers them to the application, without Locked's qualifier: the
 * default unit as a plain bean (Quarkus' default unit), and a unit under a name (Quarkus qualifies
 * its named units the same way, by the unit's name).
 */
final class ContainerUnits {
    private ContainerUnits() {
    }

    /** The container's default unit. */
    static class DefaultUnit {
        @Produces @ApplicationScoped
        EntityManagerFactory unit() { return Persistence.createEntityManagerFactory("locked-it-named"); }

        void close(@Disposes EntityManagerFactory factory) {
            factory.close();
        }
    }

    /** A unit the container names "locks"; no persistence.xml unit has that name. */
    static class NamedUnit {
        @Produces @Named("locks") @ApplicationScoped
        EntityManagerFactory unit() { return Persistence.createEntityManagerFactory("locked-it-named"); }

        void close(@Disposes @Named("locks") EntityManagerFactory factory) {
            factory.close();
        }
    }
}
