package io.locked.jpa.internal.dialect;

import io.locked.jpa.internal.connection.LockConnections;
import jakarta.persistence.EntityManagerFactory;
import java.util.Map;

/**
 * Refuses, at start-up, Apache Derby under Hibernate with its default binding of {@code Instant}s.
 * Hibernate 6 binds every {@code Instant} with one {@code Calendar} shared by all threads (its
 * {@code TIMESTAMP_UTC} type), and Derby's embedded driver changes that calendar while it converts a
 * value. Two lock calls binding at once can then write each other's times: a lease can be stored
 * already expired, which lets a second holder take a key the first still holds. Hibernate's plain
 * {@code TIMESTAMP} type with a JDBC time zone makes a calendar of its own for every value, and
 * stores the same UTC times.
 */
public final class DerbyTimeBindingCheck {
    static final String INSTANT_TYPE = "hibernate.type.preferred_instant_jdbc_type";
    static final String TIME_ZONE = "hibernate.jdbc.time_zone";

    private DerbyTimeBindingCheck() {
    }

    /**
     * @param factory     the persistence unit of the lock table
     * @param connections its connections, or null where Locked cannot reach them
     * @throws IllegalStateException if the unit is Hibernate on Derby and binds instants with the shared calendar
     */
    public static void requireOwnCalendars(EntityManagerFactory factory, LockConnections connections) {
        Map<String, Object> properties = factory.getProperties();
        boolean hibernate = properties.keySet().stream().anyMatch(key -> key.startsWith("hibernate."));
        if (!hibernate || !UnitDatabaseName.names(properties, connections, "jdbc:derby:", "derbydialect", "derby")) {
            return;
        }
        String instantType = String.valueOf(properties.get(INSTANT_TYPE)).trim();
        boolean plainTimestamp = instantType.equalsIgnoreCase("TIMESTAMP") || instantType.equals("93");
        if (!plainTimestamp || properties.get(TIME_ZONE) == null) {
            throw new IllegalStateException("Locked cannot lock safely on Apache Derby under Hibernate with its default"
                    + " binding of Instants: Hibernate binds them with one Calendar that all threads share, and"
                    + " Derby's driver changes it while it converts, so two lock calls at once can write each other's"
                    + " times (a lease stored already expired). Set " + INSTANT_TYPE + "=TIMESTAMP and " + TIME_ZONE
                    + "=UTC in the persistence unit (found " + INSTANT_TYPE + "=" + properties.get(INSTANT_TYPE)
                    + ", " + TIME_ZONE + "=" + properties.get(TIME_ZONE) + ")");
        }
    }
}
