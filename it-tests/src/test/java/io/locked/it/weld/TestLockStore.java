package io.locked.it.weld;

import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockStore;
import io.locked.jpa.JpaLockRepository;
import io.locked.jpa.testing.TestDatabase;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.persistence.EntityManagerFactory;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The application's side of the wiring: it produces the {@code @LockStore} EntityManagerFactory,
 * on the database named by the test property {@code locked-test.database} (default H2 in memory).
 */
@ApplicationScoped
public class TestLockStore {
    static final String DATABASE = "locked-test.database";
    private TestDatabase database;
    private HikariDataSource pool;

    @Produces
    @LockStore
    @ApplicationScoped
    EntityManagerFactory lockStore() {
        EntityManagerFactory factory = database().entityManagerFactory(pool());
        new JpaLockRepository(factory).createTableIfMissing();
        return factory;
    }

    /** @return the pool behind the lock store, for the scenarios' own tables */
    @Produces
    DataSource dataSource() {
        return pool();
    }

    private synchronized TestDatabase database() {
        if (database == null) {
            database = TestDatabase.valueOf(ConfigProvider.getConfig().getOptionalValue(DATABASE, String.class).orElse("H2"));
            database.requireReachable();
        }
        return database;
    }

    private synchronized HikariDataSource pool() {
        if (pool == null) {
            pool = database().pool(32);
        }
        return pool;
    }

    void close(@Disposes @LockStore EntityManagerFactory factory) {
        factory.close();
    }

    @PreDestroy
    synchronized void closePool() {
        if (pool != null) {
            pool.close();
        }
    }
}
