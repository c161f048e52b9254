package io.locked.jpa.internal.dialect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.jpa.JpaLockRepository;
import io.locked.jpa.LockStatements;
import io.locked.jpa.testing.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Derby under Hibernate with Hibernate's default binding of instants (one calendar shared by every
 * thread, which Derby's driver changes while it converts) is refused at start-up, naming the two
 * properties that give each value a calendar of its own; with them the JPA path starts. Each unit
 * is configured by its JDBC URL alone, as a user writes it, on a database of its own.
 */
class DerbyTimeBindingTest {

    @Test
    void theSharedCalendarIsRefusedNamingTheTwoProperties() {
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> build(Map.of()));
        assertTrue(refused.getMessage().contains(DerbyTimeBindingCheck.INSTANT_TYPE + "=TIMESTAMP")
                && refused.getMessage().contains(DerbyTimeBindingCheck.TIME_ZONE + "=UTC")
                && refused.getMessage().contains("Apache Derby"), refused.getMessage());
    }

    @Test
    void aPlainTimestampWithoutATimeZoneIsRefused() {
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> build(Map.of(DerbyTimeBindingCheck.INSTANT_TYPE, "TIMESTAMP")));
        assertTrue(refused.getMessage().contains(DerbyTimeBindingCheck.TIME_ZONE + "=null"), refused.getMessage());
    }

    @Test
    void aCalendarPerValueIsAccepted() {
        assertEquals(LockStatements.JPA, build(Map.of(DerbyTimeBindingCheck.INSTANT_TYPE, "TIMESTAMP",
                DerbyTimeBindingCheck.TIME_ZONE, "UTC")));
    }

    /** Starts a repository on a new in-memory Derby database with those unit properties, and answers its path. */
    private static LockStatements build(Map<String, String> unitProperties) {
        Map<String, Object> properties = new HashMap<>(unitProperties);
        properties.put("jakarta.persistence.jdbc.url", "jdbc:derby:memory:binding-" + UUID.randomUUID() + ";create=true");
        properties.put("jakarta.persistence.jdbc.user", "locked");
        properties.put("jakarta.persistence.jdbc.password", "locked");
        properties.put("jakarta.persistence.schema-generation.database.action", "create");
        try (EntityManagerFactory factory = Persistence.createEntityManagerFactory(TestDatabase.UNIT, properties)) {
            return JpaLockRepository.builder(factory).build().statements();
        }
    }
}
