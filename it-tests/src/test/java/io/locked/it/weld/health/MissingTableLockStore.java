package io.locked.it.weld.health;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockStore;
import io.locked.jpa.testing.TestDatabase;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.persistence.EntityManagerFactory;
import java.util.UUID;

/** A lock store on an empty H2 database of its own: the lock table was never created. */
@ApplicationScoped
public class MissingTableLockStore {
    private HikariDataSource pool;

    @Produces
    @LockStore
    @ApplicationScoped
    EntityManagerFactory lockStore() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:mem:no-lock-table-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        config.setUsername("sa");
        config.setPassword("");
        config.setMaximumPoolSize(2);
        pool = new HikariDataSource(config);
        return TestDatabase.H2.entityManagerFactory(pool);
    }

    @PreDestroy
    void close() {
        if (pool != null) {
            pool.close();
        }
    }
}
