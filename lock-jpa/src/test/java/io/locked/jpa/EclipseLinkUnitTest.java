package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.jpa.testing.TestProvider;
import io.locked.spi.PessimisticHold;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Which path an EclipseLink unit gets, configured as its users configure it: by JDBC URL (as the
 * README's producer does), where Locked cannot reach the provider's connections and locks through JPA,
 * and with a DataSource, whose connections the native statements use. Hibernate is on this class path
 * too, as it may be in an application: Locked must not take the unit for a Hibernate one.
 */
class EclipseLinkUnitTest {
    private static final TestDatabase DATABASE = TestDatabase.H2;

    @Test
    void aUnitConfiguredByUrlLocksThroughJpaAndRefusesNativeNamingWhy() {
        createTable();
        try (EntityManagerFactory factory = byUrl()) {
            JpaLockRepository repository = JpaLockRepository.builder(factory).build();
            assertEquals(LockStatements.JPA, repository.statements());
            assertEquals(Optional.of(LockDatabase.H2), repository.database(), "detected from the URL");
            assertExcludes(repository);

            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> JpaLockRepository.builder(factory).statements(LockStatements.NATIVE).build());
            assertTrue(refused.getMessage().startsWith("locked.statements=native: ")
                    && refused.getMessage().contains("is not Hibernate ORM")
                    && refused.getMessage().contains("jakarta.persistence.nonJtaDataSource"), refused.getMessage());
        }
    }

    @Test
    void aUnitGivenADataSourceTakesTheNativeStatements() {
        try (Store store = DATABASE.open(4, Map.of(), settings -> settings, TestProvider.ECLIPSELINK)) {
            assertEquals(LockStatements.NATIVE, store.repository().statements());
            assertExcludes(store.repository());
            assertEquals(0, store.borrowedConnections(), "every connection back in the pool");
        }
    }

    /** A held key is refused to a second caller, and free again once released. */
    private static void assertExcludes(JpaLockRepository repository) {
        String key = "eclipselink:" + UUID.randomUUID();
        PessimisticHold hold = repository.lockPessimistic(key, "first", "test", Duration.ofSeconds(2));
        assertNotNull(hold, "a free key");
        try {
            assertNull(repository.lockPessimistic(key, "second", "test", Duration.ofMillis(200)), "a held key");
        } finally {
            assertTrue(hold.release());
        }
        PessimisticHold again = repository.lockPessimistic(key, "second", "test", Duration.ofSeconds(2));
        assertNotNull(again, "the key after its release");
        assertTrue(again.release());
    }

    private static EntityManagerFactory byUrl() {
        return Persistence.createEntityManagerFactory(TestProvider.ECLIPSELINK.unit(DATABASE), Map.of(
                "jakarta.persistence.jdbc.url", DATABASE.url(),
                "jakarta.persistence.jdbc.user", DATABASE.user(),
                "jakarta.persistence.jdbc.password", DATABASE.password(),
                "eclipselink.weaving", "false",
                "eclipselink.logging.level", "WARNING"));
    }

    private static void createTable() {
        try (Store store = DATABASE.open(1)) {
            store.repository().createTableIfMissing();
        }
    }
}
