package io.locked.demo;

import io.locked.api.LockStore;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManagerFactory;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * What the application supplies: the lock store (its EntityManagerFactory), its pool and the shop's
 * name, from config ({@code demo.url}, {@code demo.shop}).
 */
@ApplicationScoped
public class DemoResources {
    private final DemoDatabase database;
    private final String shop;

    /** For proxies. */
    protected DemoResources() {
        this.database = null;
        this.shop = null;
    }

    @Inject
    DemoResources(@ConfigProperty(name = "demo.url") String url, @ConfigProperty(name = "demo.shop") String shop,
                  @ConfigProperty(name = "demo.connections", defaultValue = "8") int connections) {
        this.database = new DemoDatabase(url, connections);
        this.shop = shop;
    }

    @Produces
    @LockStore
    EntityManagerFactory lockStore() {
        return database.factory;
    }

    @Produces
    DataSource dataSource() {
        return database.pool;
    }

    @Produces
    ShopName shopName() {
        return new ShopName(shop);
    }

    @PreDestroy
    void close() {
        database.close();
    }
}
