package io.locked.it.weld.cleanup;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockManager;
import io.locked.api.LockRequest;
import io.locked.internal.cdi.IdleRowCleanupBean;
import io.locked.internal.operations.IdleRowCleanup;
import io.locked.it.weld.LockedDeployment;
import io.locked.it.weld.TestConfig;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The cleanup's settings are checked while the container boots, and its thread ends with the container. */
class CleanupDeploymentTest {

    @AfterEach
    void clearConfig() {
        TestConfig.clear();
    }

    @Test
    void aBadPeriodFailsTheDeploymentNamingTheKey() {
        TestConfig.set("locked.cleanup.every", "0s");
        refused("Invalid locked.cleanup.every: must be positive, was 0s");
    }

    @Test
    void anIdleTimeBelowAMinuteFailsTheDeploymentNamingTheKey() {
        TestConfig.set("locked.cleanup.every", "1h");
        TestConfig.set("locked.cleanup.idle-after", "10 parsecs");
        refused("Invalid locked.cleanup.idle-after: '10 parsecs' is not a duration");
        TestConfig.set("locked.cleanup.idle-after", "30s");
        refused("Invalid locked.cleanup.idle-after: must be at least 1m, was 30s");
    }

    @Test
    void anIdleTimeWithoutAPeriodFailsTheDeployment() {
        TestConfig.set("locked.cleanup.idle-after", "1h");
        refused("locked.cleanup.idle-after is set but locked.cleanup.every is not");
    }

    @Test
    void theCleanupThreadAndItsLockEndWithTheContainer() throws Exception {
        TestConfig.set("locked.cleanup.every", "20ms");
        try (WeldContainer container = LockedDeployment.with(IdleRowCleanupBean.class).initialize()) {
            LockManager locks = container.select(LockManager.class).get();
            long deadline = System.nanoTime() + 30_000_000_000L;
            // the cleanup holds its lock from its first run on
            while (locks.tryAcquire(LockRequest.of(IdleRowCleanup.KEY)).map(held -> {
                held.close();
                return true;
            }).orElse(false)) {
                assertTrue(System.nanoTime() - deadline < 0, "the cleanup never took its lock");
                Thread.sleep(20);
            }
            assertTrue(cleanupThreadAlive());
        }
        assertFalse(cleanupThreadAlive(), "the cleanup thread outlived the container");
    }

    private static boolean cleanupThreadAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(thread -> thread.getName().equals("locked-cleanup") && thread.isAlive());
    }

    private static void refused(String expected) {
        RuntimeException failure = assertThrows(RuntimeException.class, () -> {
            try (WeldContainer ignored = LockedDeployment.with(IdleRowCleanupBean.class).initialize()) {
                // booted: the bad setting went unnoticed
            }
        }, "the container booted with " + expected);
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        assertTrue(messages.toString().contains(expected), "expected <" + expected + "> in:\n" + messages);
    }
}
