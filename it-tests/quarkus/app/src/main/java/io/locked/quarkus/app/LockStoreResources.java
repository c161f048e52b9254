package io.locked.quarkus.app;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockStore;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import io.locked.jpa.LockRow;
import java.util.List;
import java.util.Map;

/** The application hands Locked its lock store: a resource-local unit on an in-memory H2 pool. */
@ApplicationScoped
public class LockStoreResources {
    private HikariDataSource pool;
    private EntityManagerFactory factory;

    @Produces
    @LockStore
    @ApplicationScoped
    EntityManagerFactory lockStore() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:mem:locked-quarkus;DB_CLOSE_DELAY=-1");
        config.setUsername("sa");
        config.setPassword("");
        config.setMaximumPoolSize(16);
        pool = new HikariDataSource(config);
        // Quarkus loads application classes in its own class loaders: Hibernate must map the LockRow
        // class the application sees, so it is told which loader to use first
        factory = Persistence.createEntityManagerFactory("locked-quarkus", Map.of(
                "jakarta.persistence.nonJtaDataSource", pool,
                "hibernate.dialect", "org.hibernate.dialect.H2Dialect",
                "hibernate.classLoaders", List.of(LockRow.class.getClassLoader())));
        return factory;
    }

    @PreDestroy
    void close() {
        if (factory != null) {
            factory.close();
        }
        if (pool != null) {
            pool.close();
        }
    }
}
