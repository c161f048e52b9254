package io.locked.it.weld.unit;

import io.locked.api.LockStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;

/**
 * The README's producer as written: an application-scoped factory (so the library sees Weld's
 * client proxy, not the factory) of a unit configured by JDBC URL in persistence.xml.
 */
public class ReadmeLockStore {

    @Produces @LockStore @ApplicationScoped
    EntityManagerFactory lockStore() { return Persistence.createEntityManagerFactory("locked-it-named"); }

    void close(@Disposes @LockStore EntityManagerFactory factory) {
        factory.close();
    }
}
