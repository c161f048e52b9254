package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.testing.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.net.ServerSocket;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A database that does not answer: a clear LockStoreUnavailableException naming the key, no hang. */
class StoreUnavailableTest {
    private HikariDataSource pool;
    private EntityManagerFactory factory;
    private LockManager locks;

    @BeforeEach
    void pointAtAPortNobodyListensOn() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:mysql://127.0.0.1:" + port + "/locked_test?connectTimeout=1000");
        config.setUsername(TestDatabase.MARIADB.user());
        config.setPassword(TestDatabase.MARIADB.password());
        config.setConnectionTimeout(1000);
        config.setInitializationFailTimeout(-1);
        pool = new HikariDataSource(config);
        factory = Persistence.createEntityManagerFactory(TestDatabase.UNIT, Map.of(
                "jakarta.persistence.nonJtaDataSource", pool,
                "hibernate.dialect", "org.hibernate.dialect.MariaDBDialect",
                "hibernate.boot.allow_jdbc_metadata_access", "false"));
        locks = LockManagerBuilder.on(JpaLockRepository.builder(factory).database(LockDatabase.MARIADB).build()).build();
    }

    @AfterEach
    void close() {
        locks.close();
        factory.close();
        pool.close();
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void acquireFailsClearlyWithinBoundedTime(LockMode mode) {
        LockRequest request = LockRequest.of("order:down").mode(mode).maxWait(Duration.ofSeconds(2));
        LockStoreUnavailableException failure = assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> assertThrows(LockStoreUnavailableException.class, () -> locks.acquire(request)));
        assertEquals("order:down", failure.key());
        assertTrue(failure.getMessage().contains("'order:down'"), failure.getMessage());
        assertTrue(failure.getCause() instanceof SQLException, "the cause is kept for diagnosis: " + failure.getCause());
        assertFalse(pool.getHikariPoolMXBean().getActiveConnections() > 0, "a connection was left borrowed");
    }
}
