package io.locked.jpa;

import static io.locked.jpa.BusyKeyLoggingTest.APPLICATION_DEFAULTS;
import static io.locked.jpa.BusyKeyLoggingTest.TRY;
import static io.locked.jpa.BusyKeyLoggingTest.WAIT;
import static io.locked.jpa.BusyKeyLoggingTest.busyAnswers;
import static io.locked.jpa.BusyKeyLoggingTest.describe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.jpa.testing.TestProvider;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * EclipseLink logs every exception of a query at WARNING, with its whole stack, before it throws it, and it has
 * no category for it: on the JPA path a try on a busy key is a {@code NOWAIT} lock the database refuses, and a wait
 * that runs out a lock wait it cancels, and EclipseLink logs both (Locked's {@code SKIP LOCKED} try is Hibernate's
 * only: see {@code RowLocksWithoutWaiting}). The one switch is the level of EclipseLink's session log, which
 * docs/operations.md ("Logging") gives, for a unit's own log and for one through {@code java.util.logging}.
 */
@Tag(TestDatabase.SIDE_BY_SIDE)
class EclipseLinkBusyKeyLoggingTest {
    /** Why the docs say it: at its default level EclipseLink warns of a try on a busy key, stack and all. */
    @Test
    void aTryOnABusyKeyIsLoggedAtEclipseLinksDefaultLevel() {
        try (EntityManagerFactory unit = eclipseLinkByUrl(Map.of())) {
            assertWarnedOfEach(busyAnswers(eclipseLinkStore(unit), APPLICATION_DEFAULTS, TRY));
        }
    }

    /** Why the docs say it: at its default level EclipseLink warns of a wait that ran out, stack and all. */
    @Test
    void aWaitThatRunsOutIsLoggedAtEclipseLinksDefaultLevel() {
        try (EntityManagerFactory unit = eclipseLinkByUrl(Map.of())) {
            assertWarnedOfEach(busyAnswers(eclipseLinkStore(unit), APPLICATION_DEFAULTS, WAIT));
        }
    }

    private static void assertWarnedOfEach(List<LogRecord> records) {
        assertTrue(!records.isEmpty() && records.stream().allMatch(record -> record.getLevel() == Level.WARNING
                        && record.getLoggerName().startsWith("org.eclipse.persistence.session")
                        && record.getThrown() != null),
                "EclipseLink logged no refused statement, or more (docs/operations.md may be out of date):\n"
                        + describe(records));
    }

    @Test
    void aTryAndAWaitLogNothingWithTheUnitsLogLevelAtSevere() {
        try (EntityManagerFactory unit = eclipseLinkByUrl(Map.of("eclipselink.logging.level", "SEVERE"))) {
            assertEquals("", describe(busyAnswers(eclipseLinkStore(unit), APPLICATION_DEFAULTS, TRY, WAIT)));
        }
    }

    /** As where an application's or a server's logging decides: the level of the sessions' logger. */
    @Test
    void aTryAndAWaitLogNothingWithTheSessionLoggerAtSevere() {
        try (EntityManagerFactory unit = eclipseLinkByUrl(Map.of())) {
            Map<String, Level> levels = new HashMap<>(APPLICATION_DEFAULTS);
            levels.put("org.eclipse.persistence.session", Level.SEVERE);
            assertEquals("", describe(busyAnswers(eclipseLinkStore(unit), levels, TRY, WAIT)));
        }
    }

    /** An EclipseLink unit configured by JDBC URL, as on Payara (the JPA path), logging through java.util.logging. */
    private static EntityManagerFactory eclipseLinkByUrl(Map<String, String> logging) {
        TestDatabase database = TestDatabase.MARIADB;
        database.requireReachable();
        try (Store tableOnly = database.open(1)) {
            tableOnly.repository().createTableIfMissing();
        }
        Map<String, Object> properties = new HashMap<>(logging);
        properties.put("jakarta.persistence.jdbc.url", database.url());
        properties.put("jakarta.persistence.jdbc.user", database.user());
        properties.put("jakarta.persistence.jdbc.password", database.password());
        properties.put("eclipselink.weaving", "false");
        // as in an application server: EclipseLink's records go through java.util.logging
        properties.put("eclipselink.logging.logger", "JavaLogger");
        // its loggers are named after the session, and a unit's log level stays on them for the JVM's life:
        // a session name of its own keeps one test's level from the next test's unit
        properties.put("eclipselink.session-name", "busy-key-logging-" + UUID.randomUUID());
        return Persistence.createEntityManagerFactory(TestProvider.ECLIPSELINK.unit(database), properties);
    }

    private static JpaLockRepository eclipseLinkStore(EntityManagerFactory unit) {
        JpaLockRepository repository = JpaLockRepository.builder(unit).build();
        assertEquals(LockStatements.JPA, repository.statements(), "a unit configured by URL locks through JPA");
        return repository;
    }

}
