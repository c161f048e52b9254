package io.locked.it.weld.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockManager;
import io.locked.api.event.LockNotAcquired;
import io.locked.it.weld.EventLog;
import io.locked.it.weld.LockedDeployment;
import io.locked.it.weld.TestConfig;
import java.util.UUID;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code @Locked(holdAtLeast = ...)}: a job that returns at once still keeps its key for the
 * period, so the next trigger skips, on this instance as on any other; config can give a method its
 * hold, and a forced release ends one. Without a hold, the same job runs at every trigger: the
 * double runs of a cluster whose instances trigger one after the other.
 */
class MinimumHoldTest {
    private static final String CLASS = Reports.class.getName();
    private final String run = UUID.randomUUID().toString();

    @AfterEach
    void clearConfig() {
        TestConfig.clear();
    }

    @Test
    void aJobUnderAMinimumHoldRunsOncePerPeriodUntilAForcedReleaseEndsTheHold() {
        try (WeldContainer container = LockedDeployment.with(Reports.class).initialize()) {
            Reports reports = container.select(Reports.class).get();
            LockManager locks = container.select(LockManager.class).get();
            for (int trigger = 0; trigger < 3; trigger++) {
                reports.nightly(run);
            }
            assertEquals(1, reports.nightlyRuns(), "three triggers within the hold's hour: one run");
            assertEquals(2, container.select(EventLog.class).get().of(LockNotAcquired.class).size(), "two skipped");
            assertTrue(locks.inspect("nightly:" + run).held(), "the key stays taken after the run returned");

            assertTrue(locks.forceRelease("nightly:" + run).isPresent(), "an operator ends the hold");
            reports.nightly(run);
            assertEquals(2, reports.nightlyRuns(), "after the forced release the job runs again");
            locks.forceRelease("nightly:" + run);
        }
    }

    @Test
    void withoutAHoldEveryTriggerRunsAndConfigGivesAMethodItsHold() {
        try (WeldContainer container = LockedDeployment.with(Reports.class).initialize()) {
            Reports reports = container.select(Reports.class).get();
            reports.hourly(run);
            reports.hourly(run);
            assertEquals(2, reports.hourlyRuns(), "without a hold, each trigger after the last run ends runs again");
        }
        TestConfig.set("locked.\"" + CLASS + "/hourly\".hold-at-least", "1h");
        String configured = run + ":configured";
        try (WeldContainer container = LockedDeployment.with(Reports.class).initialize()) {
            Reports reports = container.select(Reports.class).get();
            reports.hourly(configured);
            reports.hourly(configured);
            assertEquals(1, reports.hourlyRuns(), "config's hour-long hold: the second trigger skips");
            container.select(LockManager.class).get().forceRelease("hourly:" + configured);
        }
    }
}
