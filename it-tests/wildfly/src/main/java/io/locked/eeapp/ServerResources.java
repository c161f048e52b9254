package io.locked.eeapp;

import io.locked.api.LockStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.PersistenceUnit;

/**
 * What a Jakarta EE application produces for its beans (Quarkus has an EntityManager bean already),
 * with the one line that hands its own JTA unit to Locked, as the README shows it.
 */
@ApplicationScoped
public class ServerResources {
    @Produces @LockStore @PersistenceUnit(unitName = "app")
    EntityManagerFactory locks;

    @Produces @PersistenceContext(unitName = "app")
    EntityManager entityManager;

}
