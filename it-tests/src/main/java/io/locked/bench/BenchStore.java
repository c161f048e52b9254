package io.locked.bench;

import io.locked.api.LockStore;
import jakarta.enterprise.inject.Produces;
import jakarta.persistence.EntityManagerFactory;

/** Hands the benchmark's persistence unit (on the shared pool) to the {@code @Locked} beans. */
public class BenchStore {
    static volatile EntityManagerFactory current;

    @Produces
    @LockStore
    EntityManagerFactory lockStore() {
        return current;
    }
}
