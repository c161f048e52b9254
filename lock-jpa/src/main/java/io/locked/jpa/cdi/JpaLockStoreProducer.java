package io.locked.jpa.cdi;

import io.locked.api.LockStore;
import io.locked.internal.cdi.ConfiguredSettings;
import io.locked.internal.definition.Durations;
import io.locked.jpa.JpaLockRepository;
import io.locked.jpa.LockStatements;
import io.locked.jpa.LockTokens;
import io.locked.jpa.StandbyCommits;
import io.locked.spi.LockRepository;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.time.Duration;
import java.util.Optional;

/**
 * Supplies the lock store to {@code @Locked}: the application's {@code @LockStore EntityManagerFactory}
 * if it produces one, otherwise the persistence unit named by {@code locked.persistence-unit} (the
 * container's unit of that name, as Quarkus has them, or one created here and closed at shutdown),
 * otherwise the container's default unit (Quarkus'). A JTA unit works as well as a resource-local one:
 * the container's {@code TransactionManager} bean, if it has one, is handed to the store. With {@code locked.create-table=true} the lock table is
 * created if missing (for demos and tests; use your migrations in production); without it, a database
 * that answers without the lock table fails the store's creation, naming the script to run. {@code locked.statements}
 * ({@code auto}, {@code jpa} or {@code native}) picks the path that locks the rows; {@code locked.tokens}
 * ({@code written} or {@code clock}) how pessimistic tokens are kept ({@link LockTokens}). On a MariaDB Galera
 * cluster, {@code locked.galera.single-writer=true} says that every JVM's lock statements reach one
 * node, which pessimistic locks need there. On PostgreSQL, {@code locked.postgresql.synchronous-commit}
 * makes the lock's durable commits wait for the standbys
 * ({@link JpaLockRepository.Builder#postgresqlSynchronousCommit}). {@code locked.connection-wait} bounds an acquisition's
 * wait for a connection ({@link JpaLockRepository.Builder#connectionWait}).
 */
@ApplicationScoped
public class JpaLockStoreProducer {
    static final String PERSISTENCE_UNIT = "locked.persistence-unit";
    static final String CREATE_TABLE = "locked.create-table";
    static final String GALERA_SINGLE_WRITER = "locked.galera.single-writer";
    static final String CONNECTION_WAIT = "locked.connection-wait";
    private EntityManagerFactory ownFactory;

    @Produces
    @ApplicationScoped
    LockRepository lockRepository(@LockStore Instance<EntityManagerFactory> supplied,
                                  @Any Instance<EntityManagerFactory> units) {
        JpaLockRepository.Builder builder = JpaLockRepository.builder(lockStore(supplied, units))
                .statements(setting(LockStatements.KEY).map(LockStatements::parse).orElse(LockStatements.AUTO))
                .tokens(setting(LockTokens.KEY).map(LockTokens::parse).orElse(LockTokens.WRITTEN))
                .galeraSingleWriter(setting(GALERA_SINGLE_WRITER).map(value -> parseBoolean(GALERA_SINGLE_WRITER, value)).orElse(false))
                .connectionWait(setting(CONNECTION_WAIT).map(JpaLockStoreProducer::parseWait)
                        .orElse(JpaLockRepository.DEFAULT_CONNECTION_WAIT));
        setting(StandbyCommits.KEY).map(StandbyCommits::parse).ifPresent(builder::postgresqlSynchronousCommit);
        if (CdiTransactionManager.apiPresent()) {
            CdiTransactionManager.handTo(builder);
        }
        JpaLockRepository repository = builder.build();
        if (setting(CREATE_TABLE).map(value -> parseBoolean(CREATE_TABLE, value)).orElse(false)) {
            repository.createTableIfMissing();
        } else {
            repository.requireLockTable(); // a missing table fails the start, naming its script, not every lock
        }
        return repository;
    }

    /**
     * The unit of the lock table: the application's {@code @LockStore} factory; else the unit named by
     * {@code locked.persistence-unit}, the container's (a Quarkus unit) or, where the container has none
     * of that name, one bootstrapped here from persistence.xml; else the container's default unit.
     */
    private EntityManagerFactory lockStore(Instance<EntityManagerFactory> supplied, Instance<EntityManagerFactory> units) {
        if (supplied.isResolvable()) {
            return supplied.get();
        }
        if (supplied.isAmbiguous()) {
            throw new IllegalStateException("More than one @LockStore EntityManagerFactory is produced: "
                    + supplied.handlesStream().map(handle -> handle.getBean().toString()).toList() + ". Produce one");
        }
        Optional<String> named = setting(PERSISTENCE_UNIT);
        if (named.isPresent()) {
            String unit = named.get().trim();
            Optional<EntityManagerFactory> bean = PersistenceUnits.beanNamed(units, unit);
            if (bean.isPresent()) {
                return bean.get();
            }
            try {
                ownFactory = Persistence.createEntityManagerFactory(unit);
            } catch (RuntimeException noUnit) {
                throw new IllegalStateException(PERSISTENCE_UNIT + "=" + unit + ": no such persistence unit could be"
                        + " started: no EntityManagerFactory bean carries that name, and persistence.xml gave: "
                        + noUnit.getMessage(), noUnit);
            }
            return ownFactory;
        }
        Instance<EntityManagerFactory> defaultUnit = units.select(Default.Literal.INSTANCE);
        if (defaultUnit.isResolvable()) {
            return defaultUnit.get();
        }
        throw new IllegalStateException("Locked needs the EntityManagerFactory that holds the lock table: produce one qualified"
                + " @LockStore, or set " + PERSISTENCE_UNIT + " to a persistence unit that lists io.locked.jpa.LockRow."
                + " On WildFly or Payara: @Produces @LockStore @PersistenceUnit(unitName = \"...\") EntityManagerFactory locks;");
    }

    private static boolean parseBoolean(String key, String value) {
        return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(key + " must be true or false, was '" + value + "'");
        };
    }

    private static Duration parseWait(String value) {
        Duration wait;
        try {
            wait = Durations.parse(value);
        } catch (IllegalArgumentException invalid) {
            throw new IllegalArgumentException(CONNECTION_WAIT + ": " + invalid.getMessage(), invalid);
        }
        if (wait.isNegative()) {
            throw new IllegalArgumentException(CONNECTION_WAIT + " must be zero or more, was '" + value + "'");
        }
        return wait;
    }

    private static Optional<String> setting(String name) {
        return ConfiguredSettings.current().get(name);
    }

    @PreDestroy
    void closeOwnFactory() {
        if (ownFactory != null && ownFactory.isOpen()) {
            ownFactory.close();
        }
    }
}
