package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.jpa.testing.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A persistence unit configured by JDBC URL, on Hibernate's built-in pool of one connection: while
 * a pessimistic holder has that connection, another lock finds the pool exhausted, and must say so
 * as a LockException naming its key, not as a HibernateException.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HibernateBuiltInPoolTest {
    private EntityManagerFactory factory;
    private LockManager locks;

    @BeforeAll
    void unitWithABuiltInPoolOfOne() {
        factory = Persistence.createEntityManagerFactory(TestDatabase.UNIT, Map.of(
                "jakarta.persistence.jdbc.url", "jdbc:h2:mem:locked-built-in-pool;DB_CLOSE_DELAY=-1",
                "jakarta.persistence.jdbc.user", "sa",
                "jakarta.persistence.jdbc.password", "",
                "hibernate.connection.pool_size", "1"));
        JpaLockRepository repository = new JpaLockRepository(factory);
        repository.createTableIfMissing();
        locks = LockManagerBuilder.on(repository).build();
    }

    @AfterAll
    void close() {
        locks.close();
        factory.close();
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void exhaustedPoolIsALockExceptionNamingTheKey(LockMode mode) {
        try (LockHandle holder = locks.acquire(LockRequest.of("built-in-pool:" + UUID.randomUUID()))) {
            String key = "built-in-pool:" + UUID.randomUUID();
            LockRequest request = LockRequest.of(key).mode(mode).maxWait(Duration.ZERO);
            LockException refused = assertThrows(LockException.class, () -> locks.acquire(request));
            assertEquals(key, refused.key());
            assertTrue(refused.getMessage().contains(key), refused.getMessage());
            assertTrue(holder.isValid());
        }
    }
}
