package io.locked.it.weld.unit;

import io.locked.api.LockStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;

/** The README's producer as written, of an EclipseLink unit configured by JDBC URL. */
public class EclipseLinkLockStore {

    @Produces @LockStore @ApplicationScoped
    EntityManagerFactory lockStore() { return Persistence.createEntityManagerFactory("locked-it-eclipselink"); }

    void close(@Disposes @LockStore EntityManagerFactory factory) {
        factory.close();
    }
}
