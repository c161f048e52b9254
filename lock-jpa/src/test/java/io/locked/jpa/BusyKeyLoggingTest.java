package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A key that is busy is an answer, not an incident: a try that finds it held logs nothing at INFO or above,
 * neither from Locked nor from Hibernate or the pool, on both paths and in both modes. On the JPA path a zero
 * wait locks with {@code SKIP LOCKED} rather than {@code NOWAIT} on MariaDB, MySQL, PostgreSQL and H2, because
 * Hibernate logs every statement the database refuses (a warning with the error code and an error with its
 * message); a wait that runs out is such a refusal, and quieting Hibernate's logger of SQL errors (6.6's
 * {@code SqlExceptionHelper}, 7's {@code org.hibernate.orm.jdbc.error}), as docs/operations.md ("Logging")
 * says, leaves nothing of it. The Hibernate 7 lane runs this class too. EclipseLink:
 * {@link EclipseLinkBusyKeyLoggingTest}.
 */
@Tag(TestDatabase.SIDE_BY_SIDE)
class BusyKeyLoggingTest {
    /** Loggers whose records a busy key must not produce; other tests' threads log under other names. */
    private static final List<String> WATCHED = List.of("io.locked", "org.hibernate", "org.eclipse.persistence",
            "com.zaxxer.hikari", "com.mysql", "org.mariadb", "org.postgresql");
    /** The loggers through which Hibernate logs the SQL exceptions it converts: 6.6's, then 7's. */
    private static final List<String> HIBERNATE_SQL_ERRORS = List.of("org.hibernate.engine.jdbc.spi.SqlExceptionHelper",
            "org.hibernate.orm.jdbc.error");
    /**
     * What an application's logging has by default (INFO from the root) for the loggers the tests'
     * logging.properties quiets.
     */
    static final Map<String, Level> APPLICATION_DEFAULTS;
    static {
        Map<String, Level> defaults = new HashMap<>();
        defaults.put("org.hibernate", null);
        HIBERNATE_SQL_ERRORS.forEach(name -> defaults.put(name, null));
        defaults.put("com.zaxxer.hikari", null);
        APPLICATION_DEFAULTS = Collections.unmodifiableMap(defaults);
    }
    /** A try: the wait of a scheduled job that skips a busy run. */
    static final Duration TRY = Duration.ZERO;
    /** A wait that runs out: on the JPA path a statement that waits in whole seconds, then tries for the rest. */
    static final Duration WAIT = Duration.ofMillis(1500);

    @ParameterizedTest(name = "{0}")
    @EnumSource(names = {"MARIADB", "POSTGRESQL"})
    void onTheNativePathABusyKeyLogsNothing(TestDatabase database) {
        try (Store store = database.open(4, Map.of(), settings -> settings.statements(LockStatements.NATIVE))) {
            assertEquals(LockStatements.NATIVE, store.repository().statements());
            assertEquals("", describe(busyAnswers(store.repository(), APPLICATION_DEFAULTS, TRY, WAIT)));
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(names = {"MARIADB", "POSTGRESQL"})
    void onTheJpaPathATryLogsNothingAndAWaitNothingOnceHibernatesSqlErrorLoggerIsQuieted(TestDatabase database) {
        try (Store store = database.open(4, Map.of(), settings -> settings.statements(LockStatements.JPA))) {
            assertEquals(LockStatements.JPA, store.repository().statements());
            assertEquals("", describe(busyAnswers(store.repository(), APPLICATION_DEFAULTS, TRY)));

            Map<String, Level> documented = new HashMap<>(APPLICATION_DEFAULTS);
            HIBERNATE_SQL_ERRORS.forEach(name -> documented.put(name, Level.OFF));
            assertEquals("", describe(busyAnswers(store.repository(), documented, WAIT)));

            // why the docs say it: at the default level Hibernate logs a lock wait that ran out
            List<LogRecord> records = busyAnswers(store.repository(), APPLICATION_DEFAULTS, WAIT);
            assertTrue(!records.isEmpty() && records.stream().allMatch(record -> HIBERNATE_SQL_ERRORS.contains(record.getLoggerName())),
                    "Hibernate logged no lock wait that ran out, or more than that (docs/operations.md may be out of date):\n"
                            + describe(records));
        }
    }

    /**
     * H2, whose Hibernate dialect writes no lock that does not wait: a try is Locked's own {@code SKIP LOCKED}
     * statement. With the lock timeout hint of none alone, the try waited out H2's lock timeout and Hibernate
     * logged the refusal.
     */
    @Test
    void onH2sJpaPathATryLogsNothing() {
        try (Store store = TestDatabase.H2.open(4, Map.of(), settings -> settings.statements(LockStatements.JPA))) {
            assertEquals(LockStatements.JPA, store.repository().statements());
            assertEquals("", describe(busyAnswers(store.repository(), APPLICATION_DEFAULTS, TRY)));
        }
    }

    /**
     * One manager holds a key in each mode; another, standing for a second JVM, asks for it with each wait
     * given (zero: a try), in vain.
     *
     * @param levels levels of loggers to set for the time of the check (a level of null: the parent's)
     * @return what the watched loggers logged at INFO or above meanwhile
     */
    static List<LogRecord> busyAnswers(JpaLockRepository repository, Map<String, Level> levels, Duration... waits) {
        List<LogRecord> records = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                String logger = String.valueOf(record.getLoggerName());
                if (record.getLevel().intValue() >= Level.INFO.intValue() && WATCHED.stream().anyMatch(logger::startsWith)) {
                    records.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        LockManager holding = LockManagerBuilder.on(repository).build();
        LockManager other = LockManagerBuilder.on(repository).build();
        Logger root = Logger.getLogger("");
        Map<Logger, Level> before = setLevels(levels);
        try {
            for (LockMode mode : LockMode.values()) {
                String key = "busy-logging:" + UUID.randomUUID();
                try (LockHandle held = holding.acquire(LockRequest.of(key).mode(mode))) {
                    root.addHandler(capture);
                    try {
                        for (Duration wait : waits) {
                            if (wait.isZero()) {
                                assertTrue(other.tryAcquire(LockRequest.of(key).mode(mode)).isEmpty(), mode + ": a held key");
                            } else {
                                assertThrows(LockNotAcquiredException.class,
                                        () -> other.acquire(LockRequest.of(key).mode(mode).maxWait(wait)), mode + ": a held key");
                            }
                        }
                    } finally {
                        root.removeHandler(capture);
                    }
                }
            }
        } finally {
            other.close();
            holding.close();
            before.forEach(Logger::setLevel);
        }
        return records;
    }

    /** @return the loggers changed, each with the level to put back */
    private static Map<Logger, Level> setLevels(Map<String, Level> levels) {
        Map<Logger, Level> before = new HashMap<>();
        levels.forEach((name, level) -> {
            Logger logger = Logger.getLogger(name);
            before.put(logger, logger.getLevel());
            logger.setLevel(level);
        });
        return before;
    }

    static String describe(List<LogRecord> records) {
        return records.stream().map(record -> record.getLevel() + " " + record.getLoggerName() + ": "
                + String.valueOf(record.getMessage()).strip().lines().findFirst().orElse("")
                + (record.getThrown() == null ? "" : " " + record.getThrown().getClass().getName())).collect(Collectors.joining("\n"));
    }
}
