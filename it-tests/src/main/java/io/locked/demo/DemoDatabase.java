package io.locked.demo;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locked.jpa.JpaLockRepository;
import io.locked.jpa.LockDatabase;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.util.Map;

/** One process's view of the demo database: a pool, the persistence unit and the lock store. */
final class DemoDatabase implements AutoCloseable {
    final HikariDataSource pool;
    final EntityManagerFactory factory;
    final JpaLockRepository locks;

    DemoDatabase(String url, int connections) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername("sa");
        config.setPassword("");
        config.setMaximumPoolSize(connections);
        pool = new HikariDataSource(config);
        factory = Persistence.createEntityManagerFactory("locked-demo", Map.of(
                "jakarta.persistence.nonJtaDataSource", pool,
                "hibernate.dialect", "org.hibernate.dialect.H2Dialect"));
        locks = JpaLockRepository.builder(factory).database(LockDatabase.H2).build();
    }

    @Override
    public void close() {
        factory.close();
        pool.close();
    }
}
