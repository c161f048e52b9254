package io.locked.eeapp.jobs;

import io.locked.api.Locked;
import io.locked.api.OnTimeout;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;

/**
 * EJB timers with {@code @Locked} on the {@code @Schedule} method itself: each instance's timer fires
 * every 2 s of the instance's own clock, and Locked's {@code @AroundTimeout} takes the lock around the
 * timeout as around any call. The held one keeps its key for 1.5 s of each 2 s period
 * ({@code holdAtLeast}); the bare one is the form without it, whose double runs the scheduler test shows.
 */
@Singleton
@Startup
public class EjbTicks {
    /** How long a run takes: short, as most housekeeping jobs are. */
    private static final long WORK_MILLIS = 20;
    @Inject
    TickSwitch ticks;
    @Inject
    JobRuns runs;

    @Schedule(second = "*/2", minute = "*", hour = "*", persistent = false)
    @Locked(value = "tick:ejb-held", maxWait = "0s", onTimeout = OnTimeout.SKIP, holdAtLeast = "1500ms")
    void held() throws InterruptedException {
        work("ejb-held");
    }

    @Schedule(second = "*/2", minute = "*", hour = "*", persistent = false)
    @Locked(value = "tick:ejb-bare", maxWait = "0s", onTimeout = OnTimeout.SKIP)
    void bare() throws InterruptedException {
        work("ejb-bare");
    }

    private void work(String job) throws InterruptedException {
        if (ticks.armed()) {
            runs.record(job);
            Thread.sleep(WORK_MILLIS); // the job's own work
        }
    }
}
