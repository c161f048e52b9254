package io.locked.eeapp.jobs;

import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;

/**
 * EJB timers as the usage guide writes them: {@code @Schedule} on each instance, every 2 s of the
 * instance's own clock, calling the CDI bean whose methods are {@code @Locked}.
 */
@Singleton
@Startup
public class EjbTicks {
    @Inject
    TickSwitch ticks;
    @Inject
    TickJobs jobs;

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
}
