package io.locked.jpa.cdi;

import io.locked.api.LockStore;
import io.locked.jpa.JpaLockRepository;
import io.locked.jpa.LockStatements;
import io.locked.spi.LockRepository;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.util.Optional;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Supplies the lock store to {@code @Locked}: the application's {@code @LockStore EntityManagerFactory}
 * if it produces one, otherwise the persistence unit named by {@code locked.persistence-unit}
 * (created here and closed at shutdown). With {@code locked.create-table=true} the lock table is
 * created if missing (for demos and tests; use your migrations in production). {@code locked.statements}
 * ({@code auto}, {@code jpa} or {@code native}) picks the path that locks the rows. On a MariaDB Galera
 * cluster, {@code locked.galera.single-writer=true} says that every JVM's lock statements reach one
 * node, which pessimistic locks need there.
 */
@ApplicationScoped
public class JpaLockStoreProducer {
    static final String PERSISTENCE_UNIT = "locked.persistence-unit";
    static final String CREATE_TABLE = "locked.create-table";
    static final String GALERA_SINGLE_WRITER = "locked.galera.single-writer";
    private EntityManagerFactory ownFactory;

    @Produces
    @ApplicationScoped
    LockRepository lockRepository(@LockStore Instance<EntityManagerFactory> supplied) {
        EntityManagerFactory factory;
        if (supplied.isResolvable()) {
            factory = supplied.get();
        } else {
            String unit = setting(PERSISTENCE_UNIT).orElseThrow(() -> new IllegalStateException(
                    "Locked needs the EntityManagerFactory that holds the lock table: produce one qualified"
                            + " @LockStore, or set " + PERSISTENCE_UNIT + " to a persistence unit that lists io.locked.jpa.LockRow"));
            ownFactory = Persistence.createEntityManagerFactory(unit);
            factory = ownFactory;
        }
        JpaLockRepository repository = JpaLockRepository.builder(factory)
                .statements(setting(LockStatements.KEY).map(LockStatements::parse).orElse(LockStatements.AUTO))
                .galeraSingleWriter(setting(GALERA_SINGLE_WRITER).map(JpaLockStoreProducer::parseBoolean).orElse(false))
                .build();
        if (setting(CREATE_TABLE).map(Boolean::parseBoolean).orElse(false)) {
            repository.createTableIfMissing();
        }
        return repository;
    }

    private static boolean parseBoolean(String value) {
        return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(GALERA_SINGLE_WRITER + " must be true or false, was '" + value + "'");
        };
    }

    private static Optional<String> setting(String name) {
        return ConfigProvider.getConfig(Thread.currentThread().getContextClassLoader()).getOptionalValue(name, String.class);
    }

    @PreDestroy
    void closeOwnFactory() {
        if (ownFactory != null && ownFactory.isOpen()) {
            ownFactory.close();
        }
    }
}
