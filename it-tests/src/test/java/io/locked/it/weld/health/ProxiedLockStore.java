package io.locked.it.weld.health;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockStore;
import io.locked.jpa.testing.TestDatabase;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.persistence.EntityManagerFactory;

/** The lock store on MariaDB, reached through the test's stalling proxy. */
@ApplicationScoped
public class ProxiedLockStore {
    /** The proxy's port, set by the test before the container starts. */
    static volatile int proxyPort;
    private HikariDataSource pool;

    @Produces
    @LockStore
    @ApplicationScoped
    EntityManagerFactory lockStore() {
        TestDatabase database = TestDatabase.MARIADB;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.url().replaceFirst("//[^/]+/", "//127.0.0.1:" + proxyPort + "/"));
        config.setUsername(database.user());
        config.setPassword(database.password());
        config.setMaximumPoolSize(4);
        config.setConnectionTimeout(2_000);
        pool = new HikariDataSource(config);
        return database.entityManagerFactory(pool);
    }

    @PreDestroy
    void close() {
        if (pool != null) {
            pool.close();
        }
    }
}
