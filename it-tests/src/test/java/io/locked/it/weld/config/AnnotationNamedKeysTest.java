package io.locked.it.weld.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockRequest;
import io.locked.api.OnTimeout;
import io.locked.api.event.LockNotAcquired;
import io.locked.it.weld.EventLog;
import io.locked.it.weld.LockedDeployment;
import io.locked.it.weld.TestConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the user wrote: config keys with the annotation's names ({@code locked.default.maxWait},
 * {@code locked.default.onTimeout}). They are read like {@code wait} and {@code on-timeout}, a bad value
 * fails the deployment naming {@code @Locked.maxWait}, and a {@code locked.*} key Locked does not read
 * is warned about at start-up, with the key it probably meant.
 */
class AnnotationNamedKeysTest {

    @AfterEach
    void clearConfig() {
        TestConfig.clear();
    }

    @Test
    void annotationNamedKeysOverrideTheAnnotation() throws Exception {
        TestConfig.set("locked.default.maxWait", "0s");
        TestConfig.set("locked.default.onTimeout", "skip");
        try (WeldContainer container = LockedDeployment.with(Reports.class).initialize()) {
            Reports reports = container.select(Reports.class).get();
            LockManager locks = container.select(LockManager.class).get();
            LockHandle held = CompletableFuture.supplyAsync(() -> locks.acquire(LockRequest.of("report:daily"))).get();
            try {
                reports.daily(); // 20s by its annotation: with the keys ignored, this waits, then throws
            } finally {
                CompletableFuture.runAsync(held::close).get();
            }
            LockNotAcquired refused = container.select(EventLog.class).get().of(LockNotAcquired.class).get(0);
            assertEquals(Duration.ZERO, refused.maxWait());
            assertEquals(OnTimeout.SKIP, refused.outcome());
            assertEquals(0, reports.runs());
        }
    }

    @Test
    void aBadValueUnderTheAnnotationsNameFailsTheDeploymentSayingWhatIsWrong() {
        TestConfig.set("locked.default.maxWait", "garbage");
        String messages = refused();
        assertTrue(messages.contains("Invalid @Locked.maxWait on " + Reports.class.getName() + "#daily() from config"
                + " locked.default.maxWait=garbage: 'garbage' is not a duration"), messages);

        TestConfig.clear();
        TestConfig.set("locked.default.onTimeout", "skipp");
        messages = refused();
        assertTrue(messages.contains("Invalid @Locked.onTimeout on " + Reports.class.getName() + "#daily() from config"
                + " locked.default.onTimeout=skipp: unknown value 'skipp'"), messages);

        TestConfig.clear();
        TestConfig.set("locked.default.max-wait", "-5s");
        messages = refused();
        assertTrue(messages.contains("locked.default.max-wait=-5s: '-5s' is negative"), messages);
    }

    @Test
    void anUnknownKeyIsWarnedAboutAtStartUp() {
        TestConfig.set("locked.default.maxwait", "0s");
        List<String> warnings = new ArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                warnings.add(record.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = Logger.getLogger("io.locked");
        logger.addHandler(capture);
        try (WeldContainer ignored = LockedDeployment.with(Reports.class).initialize()) {
            assertTrue(warnings.stream().anyMatch(warning -> warning.contains(
                    "Locked does not read the config key locked.default.maxwait; did you mean locked.default.max-wait?")),
                    String.valueOf(warnings));
        } finally {
            logger.removeHandler(capture);
        }
    }

    private static String refused() {
        RuntimeException failure = assertThrows(RuntimeException.class,
                () -> LockedDeployment.with(Reports.class).initialize().close());
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        return messages.toString();
    }
}
