package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.Lease;
import io.locked.spi.PessimisticHold;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * H2 bounds a lock wait only through the session's {@code LOCK_TIMEOUT}; a pooled connection must
 * still go back to the pool with the timeout it came with, whatever wait a lock asked for. One
 * connection in the pool, so every operation runs on the connection the test reads; a database of
 * its own, so that the cleanup touches no other test's rows.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class H2LockTimeoutRestoredTest {
    private static final long POOL_DEFAULT = 1500;
    private HikariDataSource pool;
    private EntityManagerFactory factory;
    private JpaLockRepository repository;

    enum Operation { PESSIMISTIC_LOCK, OPTIMISTIC_TAKE, CLEANUP }

    @BeforeAll
    void openPoolOfOne() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:mem:locked-lock-timeout;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=" + POOL_DEFAULT);
        config.setUsername("sa");
        config.setPassword("");
        config.setMaximumPoolSize(1);
        pool = new HikariDataSource(config);
        factory = TestDatabase.H2.entityManagerFactory(pool);
        repository = new JpaLockRepository(factory);
        repository.createTableIfMissing();
    }

    @AfterAll
    void close() {
        factory.close();
        pool.close();
    }

    @ParameterizedTest
    @EnumSource(Operation.class)
    void connectionGoesBackWithItsLockTimeout(Operation operation) throws SQLException {
        for (Duration wait : new Duration[] {Duration.ZERO, Duration.ofMillis(700), Duration.ofSeconds(30)}) {
            long before = pooledLockTimeout();
            run(operation, "restored:" + UUID.randomUUID(), wait);
            assertEquals(before, pooledLockTimeout(), operation + " with a wait of " + wait
                    + " left the pooled connection's LOCK_TIMEOUT changed");
        }
        assertEquals(POOL_DEFAULT, pooledLockTimeout());
    }

    private void run(Operation operation, String key, Duration wait) {
        String owner = UUID.randomUUID().toString();
        switch (operation) {
            case PESSIMISTIC_LOCK -> {
                PessimisticHold hold = repository.lockPessimistic(key, owner, "test", wait);
                assertNotNull(hold);
                hold.release();
            }
            case OPTIMISTIC_TAKE -> {
                Lease lease = repository.takeLease(key, owner, "test", Duration.ofSeconds(30), wait);
                assertNotNull(lease);
                repository.releaseLease(lease);
            }
            case CLEANUP -> {
                // a free row idle for longer than a microsecond, which the cleanup locks without waiting
                repository.lockPessimistic(key, owner, "test", wait).release();
                repository.deleteIdleRows(Duration.ofNanos(1000));
            }
        }
    }

    private long pooledLockTimeout() throws SQLException {
        try (Connection connection = pool.getConnection(); Statement sql = connection.createStatement();
             ResultSet value = sql.executeQuery("SELECT LOCK_TIMEOUT()")) {
            value.next();
            return value.getLong(1);
        }
    }
}
