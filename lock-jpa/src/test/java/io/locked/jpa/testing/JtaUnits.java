package io.locked.jpa.testing;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.exceptionsorter.MySQLExceptionSorter;
import io.agroal.api.exceptionsorter.PostgreSQLExceptionSorter;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import io.agroal.narayana.NarayanaTransactionIntegration;
import io.locked.jpa.JpaLockRepository;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import jakarta.transaction.TransactionManager;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * Container-managed (JTA) units outside a server, built as Quarkus builds its units: Narayana's
 * transaction manager, Agroal's pool enlisting its connections in the thread's transaction, and a
 * Hibernate unit of transaction type JTA on that pool, with Narayana as its JTA platform.
 */
public final class JtaUnits {
    private static TransactionManager transactionManager;

    private JtaUnits() {
    }

    /** @return Narayana's transaction manager, its object store under target/ */
    public static synchronized TransactionManager transactionManager() {
        if (transactionManager == null) {
            String store = Path.of("target", "narayana").toAbsolutePath().toString();
            System.setProperty("ObjectStoreEnvironmentBean.objectStoreDir", store);
            System.setProperty("com.arjuna.ats.arjuna.objectstore.objectStoreDir", store);
            System.setProperty("CoreEnvironmentBean.nodeIdentifier", "locked-test");
            transactionManager = com.arjuna.ats.jta.TransactionManager.transactionManager();
        }
        return transactionManager;
    }

    /** @return a pool that enlists each connection taken inside a transaction in that transaction */
    public static AgroalDataSource enlistingPool(TestDatabase database, int maxConnections) {
        TransactionManager transactions = transactionManager();
        AgroalDataSourceConfigurationSupplier configuration = new AgroalDataSourceConfigurationSupplier()
                .metricsEnabled(true)
                .connectionPoolConfiguration(pool -> pool
                        .maxSize(maxConnections)
                        .acquisitionTimeout(Duration.ofSeconds(10))
                        // as Quarkus configures Agroal per database kind: a connection that failed
                        // fatally is destroyed rather than pooled again
                        .exceptionSorter(database == TestDatabase.POSTGRESQL ? new PostgreSQLExceptionSorter()
                                : new MySQLExceptionSorter())
                        .transactionIntegration(new NarayanaTransactionIntegration(transactions,
                                new com.arjuna.ats.internal.jta.transaction.arjunacore.TransactionSynchronizationRegistryImple()))
                        .connectionFactoryConfiguration(factory -> factory
                                .jdbcUrl(database.url())
                                .principal(new NamePrincipal(database.user()))
                                .credential(new SimplePassword(database.password()))));
        try {
            return AgroalDataSource.from(configuration);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("Cannot start an Agroal pool on " + database, e);
        }
    }

    /**
     * @param dataSource the unit's JTA data source
     * @param platform   Hibernate's JTA platform setting
     * @return a Hibernate unit of transaction type JTA on the test database
     */
    public static EntityManagerFactory jtaUnit(TestDatabase database, DataSource dataSource, String platform) {
        database.convertEarlierLockTable(dataSource);
        Map<String, Object> properties = new HashMap<>(TestProvider.HIBERNATE.properties(database));
        properties.put("jakarta.persistence.transactionType", "JTA");
        properties.put("jakarta.persistence.jtaDataSource", dataSource);
        properties.put("hibernate.transaction.jta.platform", platform);
        return Persistence.createEntityManagerFactory(TestDatabase.UNIT, properties);
    }

    /** Narayana as a Hibernate JTA platform, as an application outside a server names it. */
    public static final String NARAYANA_PLATFORM = "org.hibernate.engine.transaction.jta.platform.internal.JBossStandAloneJtaPlatform";

    /**
     * A lock store on a JTA unit, its table created.
     *
     * @param settings settings of the repository beyond its unit
     */
    public static Store open(TestDatabase database, int maxConnections, UnaryOperator<JpaLockRepository.Builder> settings) {
        database.requireReachable();
        AgroalDataSource pool = enlistingPool(database, maxConnections);
        EntityManagerFactory factory = jtaUnit(database, pool, NARAYANA_PLATFORM);
        JpaLockRepository repository = settings.apply(JpaLockRepository.builder(factory)).build();
        repository.createTableIfMissing();
        return new Store(database, agroal(pool), factory, repository);
    }

    private static TestPool agroal(AgroalDataSource pool) {
        return new TestPool() {
            @Override
            public DataSource dataSource() {
                return pool;
            }

            @Override
            public int borrowed() {
                return (int) pool.getMetrics().activeCount();
            }

            @Override
            public void evictIdle() {
                pool.flush(AgroalDataSource.FlushMode.GRACEFUL);
            }

            @Override
            public void close() {
                pool.close();
            }
        };
    }
}
