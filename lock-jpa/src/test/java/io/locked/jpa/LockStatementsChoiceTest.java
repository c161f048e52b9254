package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which path locks the rows, for each setting of {@code locked.statements}, and the errors of a bad one. */
class LockStatementsChoiceTest {

    @Test
    void autoTakesTheNativeStatementsWhereTheDatabaseHasThem() {
        try (Store store = TestDatabase.H2.open(2)) {
            assertEquals(LockStatements.NATIVE, store.repository().statements());
            assertEquals(Optional.of(LockDatabase.H2), store.repository().database());
        }
    }

    @Test
    void autoLocksThroughJpaOnADatabaseWithoutNativeStatements() {
        try (Store store = TestDatabase.DERBY.open(2)) {
            assertEquals(LockStatements.JPA, store.repository().statements());
            assertEquals(Optional.empty(), store.repository().database());
        }
    }

    @Test
    void jpaIsTakenAlsoWhereNativeStatementsExist() {
        try (Store store = TestDatabase.H2.open(2, Map.of(), settings -> settings.statements(LockStatements.JPA))) {
            assertEquals(LockStatements.JPA, store.repository().statements());
            // the shipped script still makes the table: the paths share it
            store.repository().createTableIfMissing();
        }
    }

    @Test
    void nativeOnADatabaseWithoutNativeStatementsFailsAtStartUpNamingIt() {
        try (HikariDataSource pool = TestDatabase.DERBY.pool(2);
             EntityManagerFactory factory = TestDatabase.DERBY.entityManagerFactory(pool)) {
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> JpaLockRepository.builder(factory).statements(LockStatements.NATIVE).build());
            assertTrue(refused.getMessage().startsWith("locked.statements=native: ")
                    && refused.getMessage().contains("Apache Derby")
                    && refused.getMessage().contains("locked.statements=auto or jpa"), refused.getMessage());
        }
    }

    @Test
    void theTableOfADatabaseWithoutAScriptIsTheProvidersToMake() {
        try (Store store = TestDatabase.DERBY.open(2)) {
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> store.repository().createTableIfMissing());
            assertTrue(refused.getMessage().contains("jakarta.persistence.schema-generation.database.action"),
                    refused.getMessage());
        }
    }

    @Test
    void anUnknownSettingNamesTheKeyAndTheValuesAllowed() {
        assertEquals(LockStatements.JPA, LockStatements.parse(" Jpa "));
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> LockStatements.parse("fast"));
        assertEquals("locked.statements must be auto, jpa or native, was 'fast'", refused.getMessage());
    }

    @Test
    void aNullChoiceIsRefusedByTheBuilder() {
        try (Store store = TestDatabase.H2.open(2)) {
            assertThrows(IllegalArgumentException.class, () -> JpaLockRepository.builder(store.factory()).statements(null));
        }
    }
}
