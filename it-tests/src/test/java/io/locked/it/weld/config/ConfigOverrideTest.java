package io.locked.it.weld.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.OnTimeout;
import io.locked.api.event.LockAcquired;
import io.locked.api.event.LockNotAcquired;
import io.locked.it.weld.EventLog;
import io.locked.it.weld.LockedDeployment;
import io.locked.it.weld.TestConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** MicroProfile Config overrides the annotation, most specific first; enabled=false switches locking off. */
class ConfigOverrideTest {
    private static final String CLASS = Reports.class.getName();

    @AfterEach
    void clearConfig() {
        TestConfig.clear();
    }

    @Test
    void methodBeatsClassBeatsDefaultBeatsAnnotation() throws Exception {
        TestConfig.set("locked.default.max-wait", "0s");
        TestConfig.set("locked.default.on-timeout", "skip");
        TestConfig.set("locked.\"" + CLASS + "\".max-wait", "PT0.2S");
        TestConfig.set("locked.\"" + CLASS + "/daily\".max-wait", "100ms");
        TestConfig.set("locked.\"" + CLASS + "/weekly\".mode", "optimistic");
        try (WeldContainer container = LockedDeployment.with(Reports.class).initialize()) {
            Reports reports = container.select(Reports.class).get();
            LockManager locks = container.select(LockManager.class).get();
            EventLog log = container.select(EventLog.class).get();
            for (String key : List.of("report:daily", "report:monthly")) {
                holdElsewhere(locks, key, () -> {
                    if (key.endsWith("daily")) {
                        reports.daily();
                    } else {
                        reports.monthly();
                    }
                });
            }
            reports.weekly();

            List<LockNotAcquired> refused = log.of(LockNotAcquired.class);
            assertEquals(Duration.ofMillis(100), refused.get(0).maxWait(), "method-level wait");
            assertEquals(Duration.ofMillis(200), refused.get(1).maxWait(), "class-level wait");
            assertEquals(OnTimeout.SKIP, refused.get(0).outcome(), "default on-timeout");
            assertEquals(0, reports.runs() - 1, "only weekly ran; the others were skipped");
            assertEquals(LockMode.OPTIMISTIC, log.of(LockAcquired.class).get(0).mode(), "method-level mode");
        }
    }

    @Test
    void enabledFalseRunsWithoutTheLock() throws Exception {
        TestConfig.set("locked.\"" + CLASS + "/daily\".enabled", "false");
        try (WeldContainer container = LockedDeployment.with(Reports.class).initialize()) {
            Reports reports = container.select(Reports.class).get();
            LockManager locks = container.select(LockManager.class).get();
            holdElsewhere(locks, "report:daily", reports::daily);
            assertEquals(1, reports.runs(), "a disabled method runs even while its key is held");
            assertTrue(container.select(EventLog.class).get().of(LockAcquired.class).isEmpty());
        }
    }

    @Test
    void enabledFalseByDefaultSwitchesEverythingOff() {
        TestConfig.set("locked.default.enabled", "false");
        try (WeldContainer container = LockedDeployment.with(Reports.class).initialize()) {
            Reports reports = container.select(Reports.class).get();
            reports.daily();
            reports.weekly();
            assertTrue(container.select(EventLog.class).get().of(LockAcquired.class).isEmpty());
            assertEquals(2, reports.runs());
        }
    }

    // holds the key on another thread (a thread that holds it would re-enter) while the call runs
    private static void holdElsewhere(LockManager locks, String key, Runnable call) throws Exception {
        LockHandle held = CompletableFuture.supplyAsync(() -> locks.acquire(LockRequest.of(key))).get();
        try {
            call.run();
        } finally {
            CompletableFuture.runAsync(held::close).get();
        }
    }
}
