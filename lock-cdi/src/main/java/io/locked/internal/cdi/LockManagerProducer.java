package io.locked.internal.cdi;

import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.spi.LockRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;

/** The application's {@link LockManager}, on whatever {@link LockRepository} bean the deployment has (lock-jpa supplies one). */
@ApplicationScoped
public class LockManagerProducer {

    @Produces
    @ApplicationScoped
    LockManager lockManager(LockRepository repository) {
        return LockManagerBuilder.on(repository).build();
    }

    void close(@Disposes LockManager manager) {
        manager.close();
    }
}
