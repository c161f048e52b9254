package io.locked.eeapp.jobs;

import io.locked.api.Locked;
import io.locked.api.OnTimeout;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;

/**
 * EJB timers as the usage guide writes them: {@code @Schedule} on each instance, every 2 s of the
 * instance's own clock, calling the CDI bean whose methods are {@code @Locked}. {@link #direct()} is
 * the form the guide warns against, {@code @Locked} on the timeout method itself, kept to show what
 * the servers do with it.
 */
@Singleton
@Startup
public class EjbTicks {
    @Inject
    TickSwitch ticks;
    @Inject
    TickJobs jobs;
    @Inject
    JobRuns runs;

    @Schedule(second = "*/2", minute = "*", hour = "*", persistent = false)
    void held() throws InterruptedException {
        if (ticks.armed()) {
            jobs.ejbHeld();
        }
    }

    @Schedule(second = "*/2", minute = "*", hour = "*", persistent = false)
    void bare() throws InterruptedException {
        if (ticks.armed()) {
            jobs.ejbBare();
        }
    }

    @Schedule(second = "*/2", minute = "*", hour = "*", persistent = false)
    @Locked(value = "tick:ejb-direct", maxWait = "0s", onTimeout = OnTimeout.SKIP, holdAtLeast = "1500ms")
    void direct() {
        if (ticks.armed()) {
            runs.record("ejb-direct");
        }
    }
}
