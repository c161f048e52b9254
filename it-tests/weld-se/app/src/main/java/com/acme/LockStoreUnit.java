package com.acme;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.util.Map;

/** The unit of the lock table, on a connection pool of the application's own. */
@ApplicationScoped
public class LockStoreUnit {
    private HikariDataSource pool;

    @Produces
    @LockStore
    @ApplicationScoped
    EntityManagerFactory lockStore() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(System.getProperty("app.jdbc.url"));
        config.setUsername(System.getProperty("app.jdbc.user"));
        config.setPassword(System.getProperty("app.jdbc.password"));
        // a pessimistic hold keeps one connection for as long as the method runs
        config.setMaximumPoolSize(10);
        pool = new HikariDataSource(config);
        return Persistence.createEntityManagerFactory("app", Map.of("jakarta.persistence.nonJtaDataSource", pool));
    }

    void close(@Disposes @LockStore EntityManagerFactory factory) {
        factory.close();
        pool.close();
    }
}
