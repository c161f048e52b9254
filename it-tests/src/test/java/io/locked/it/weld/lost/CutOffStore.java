package io.locked.it.weld.lost;

import io.locked.api.LockStore;
import io.locked.contract.PausableRepository;
import io.locked.jpa.JpaLockRepository;
import io.locked.spi.LockRepository;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import jakarta.persistence.EntityManagerFactory;

/**
 * The real H2 store, behind a switch that cuts lease renewals off as a network partition would. An
 * enabled alternative, so it wins over the library's own LockRepository producer.
 */
@Alternative
@Priority(1)
@ApplicationScoped
public class CutOffStore {

    // @Singleton: one shared instance without a client proxy (the repository class is final)
    @Produces
    @Singleton
    PausableRepository store(@LockStore EntityManagerFactory factory) {
        return new PausableRepository(new JpaLockRepository(factory));
    }
}
