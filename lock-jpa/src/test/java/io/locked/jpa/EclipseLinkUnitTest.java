package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.jpa.testing.TestProvider;
import io.locked.spi.PessimisticHold;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import jakarta.persistence.SharedCacheMode;
import jakarta.persistence.ValidationMode;
import jakarta.persistence.spi.PersistenceUnitInfo;
import jakarta.persistence.spi.PersistenceUnitTransactionType;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import javax.sql.DataSource;
import org.eclipse.persistence.jpa.PersistenceProvider;
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

    /**
     * A unit a container created and handed its data source as an object (Payara's
     * {@code <jta-data-source>}): EclipseLink keeps it in its login, not among the unit's properties.
     * Locked finds it there and locks with its own statements. Before it looked there, this unit
     * locked through JPA (seen failing on {@code JPA}).
     */
    @Test
    void aUnitAContainerHandedItsDataSourceTakesTheNativeStatements() {
        createTable();
        try (HikariDataSource dataSource = DATABASE.pool(4);
             EntityManagerFactory factory = new PersistenceProvider().createContainerEntityManagerFactory(
                     containerUnit(dataSource), Map.of("eclipselink.logging.level", "WARNING"))) {
            assertTrue(factory.getProperties().values().stream().noneMatch(DataSource.class::isInstance),
                    "the data source is not among the unit's properties: " + factory.getProperties());
            JpaLockRepository repository = JpaLockRepository.builder(factory).build();
            assertEquals(LockStatements.NATIVE, repository.statements());
            assertExcludes(repository);
            assertEquals(0, dataSource.getHikariPoolMXBean().getActiveConnections(), "every connection back in the pool");
        }
    }

    /** The unit as a container describes it to its provider: the data source an object, no JDBC URL. */
    private static PersistenceUnitInfo containerUnit(DataSource dataSource) {
        ClassLoader loader = EclipseLinkUnitTest.class.getClassLoader();
        InvocationHandler answers = (proxy, method, arguments) -> switch (method.getName()) {
            case "getPersistenceUnitName" -> "locked-container-unit";
            case "getPersistenceProviderClassName" -> PersistenceProvider.class.getName();
            case "getTransactionType" -> PersistenceUnitTransactionType.RESOURCE_LOCAL;
            case "getNonJtaDataSource" -> dataSource;
            case "getMappingFileNames" -> List.of("META-INF/locked/instant-mapping.xml");
            case "getManagedClassNames" -> List.of(LockRow.class.getName());
            case "excludeUnlistedClasses" -> true;
            case "getJarFileUrls" -> List.of();
            case "getPersistenceUnitRootUrl" -> EclipseLinkUnitTest.class.getProtectionDomain().getCodeSource().getLocation();
            case "getSharedCacheMode" -> SharedCacheMode.NONE;
            case "getValidationMode" -> ValidationMode.NONE;
            case "getProperties" -> new Properties();
            case "getPersistenceXMLSchemaVersion" -> "3.0";
            case "getClassLoader", "getNewTempClassLoader" -> loader;
            case "hashCode" -> System.identityHashCode(proxy);
            case "equals" -> proxy == arguments[0];
            case "toString" -> "the container's unit";
            default -> null; // addTransformer: no weaving here, and the rest have no answer in a container without them
        };
        return (PersistenceUnitInfo) Proxy.newProxyInstance(loader, new Class<?>[] {PersistenceUnitInfo.class}, answers);
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
