package io.locked.it.weld.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.locked.it.weld.LockedDeployment;
import io.locked.it.weld.TestConfig;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A per-method or per-class key whose class or method is misspelt ({@code locked."com.acme.Shiping/ship".wait})
 * is read by nothing: the start-up warns, naming the nearest {@code @Locked} method's key, and only about it.
 */
class UnknownConfigTargetTest {
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                warnings.add(record.getMessage());
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Logger logger = Logger.getLogger("io.locked");

    @AfterEach
    void clear() {
        TestConfig.clear();
        logger.removeHandler(capture);
    }

    @Test
    void aKeyNamingNoLockedMethodIsWarnedAboutAtStartUp() {
        String reports = Reports.class.getName();
        String misspelt = reports.replace("Reports", "Reprots");
        TestConfig.set("locked.\"" + misspelt + "/daily\".max-wait", "0s");
        TestConfig.set("locked.\"" + reports + "/dayly\".max-wait", "0s");
        TestConfig.set("locked.\"" + reports + "/weekly\".max-wait", "1s");
        TestConfig.set("locked.\"" + reports + "\".mode", "optimistic");
        logger.addHandler(capture);
        try (WeldContainer ignored = LockedDeployment.with(Reports.class).initialize()) {
            assertEquals(List.of(
                    "Locked's config key locked.\"" + reports + "/dayly\".max-wait names a method with no @Locked method, so"
                            + " nothing reads it; did you mean locked.\"" + reports + "/daily\".max-wait?",
                    "Locked's config key locked.\"" + misspelt + "/daily\".max-wait names a method with no @Locked method, so"
                            + " nothing reads it; did you mean locked.\"" + reports + "/daily\".max-wait?"),
                    warnings.stream().filter(warning -> warning.startsWith("Locked's config key")).sorted().toList());
        }
    }
}
