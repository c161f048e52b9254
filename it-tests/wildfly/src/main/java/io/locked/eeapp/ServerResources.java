package io.locked.eeapp;

import io.locked.api.LockStore;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
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
@Priority(1)
public class ServerResources {
    @Produces @LockStore @PersistenceUnit(unitName = "app")
    EntityManagerFactory locks;

    // a Jakarta EE 11 server may offer its own EntityManager bean of the unit (Persistence 3.2; Payara 7
    // does): an alternative with a priority is chosen over it, and on EE 10 servers it is the only one
    @Produces @Alternative @PersistenceContext(unitName = "app")
    EntityManager entityManager;

}
