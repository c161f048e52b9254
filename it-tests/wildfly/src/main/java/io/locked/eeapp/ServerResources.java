package io.locked.eeapp;

import io.locked.api.LockStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceUnit;

/** The one line that hands the application's own JTA unit to Locked, as the README shows it. */
@ApplicationScoped
public class LockStoreOfTheApplication {
    @Produces @LockStore @PersistenceUnit(unitName = "app")
    EntityManagerFactory locks;
}
