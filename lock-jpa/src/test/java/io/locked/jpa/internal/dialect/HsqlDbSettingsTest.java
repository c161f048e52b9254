package io.locked.jpa.internal.dialect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locked.jpa.JpaLockRepository;
import io.locked.jpa.LockStatements;
import io.locked.jpa.testing.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * An HSQLDB on which the JPA path would not exclude with bounded waits is refused at start-up, with
 * the settings it needs; the settings that {@code HsqlDbLockContractTest} runs on, or MVCC with the
 * lock unit's connections at REPEATABLE READ, are accepted. Each case is a database of its own.
 */
class HsqlDbSettingsTest {

    @Test
    void theDefaultTableLockingIsRefused() {
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> build("", pool -> { }));
        assertTrue(refused.getMessage().contains("transaction control LOCKS")
                && refused.getMessage().contains(HsqldbSettingsCheck.NEEDED), refused.getMessage());
    }

    @Test
    void rowLocksWhoseWaitsHaveNoBoundAreRefused() {
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> build(";hsqldb.tx=mvcc", pool -> { }));
        assertTrue(refused.getMessage().contains("isolation READ COMMITTED")
                && refused.getMessage().contains("without bound"), refused.getMessage());
    }

    @Test
    void mvccWithSerializableTransactionsIsAccepted() {
        assertEquals(LockStatements.JPA, build(";hsqldb.tx=mvcc;hsqldb.tx_level=serializable", pool -> { }));
    }

    @Test
    void mvccWithTheLockUnitsConnectionsAtRepeatableReadIsAccepted() {
        assertEquals(LockStatements.JPA, build(";hsqldb.tx=mvcc",
                pool -> pool.setTransactionIsolation("TRANSACTION_REPEATABLE_READ")));
    }

    /** Starts a repository on a new in-memory database with those URL settings, and answers its path. */
    private static LockStatements build(String urlSettings, Consumer<HikariConfig> poolSettings) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:hsqldb:mem:settings-" + UUID.randomUUID() + urlSettings);
        config.setUsername("locked");
        config.setPassword("locked");
        config.setMaximumPoolSize(2);
        poolSettings.accept(config);
        try (HikariDataSource pool = new HikariDataSource(config);
             EntityManagerFactory factory = Persistence.createEntityManagerFactory(TestDatabase.UNIT,
                     Map.of("jakarta.persistence.nonJtaDataSource", pool,
                             "hibernate.dialect", "org.hibernate.dialect.HSQLDialect"))) {
            return JpaLockRepository.builder(factory).build().statements();
        }
    }
}
