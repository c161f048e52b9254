package io.locked.eeapp.jobs;

import io.locked.api.Locked;
import io.locked.api.OnTimeout;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * The jobs that the managed scheduled executor ({@link ExecutorTicks}) triggers on each instance, as
 * the usage guide writes them: a CDI bean whose methods are {@code @Locked}, called through its proxy.
 * The held one keeps its key for 1.5 s of each 2 s period ({@code holdAtLeast}); the bare one is the
 * form without it, whose double runs the scheduler test shows. Each job has its own key (the EJB
 * timers' jobs are in {@link EjbTicks}).
 */
@ApplicationScoped
public class TickJobs {
    /** How long a run takes: short, as most housekeeping jobs are. */
    private static final long WORK_MILLIS = 20;

    @Inject
    JobRuns runs;

    @Locked(value = "tick:executor-held", maxWait = "0s", onTimeout = OnTimeout.SKIP, holdAtLeast = "1500ms")
    public void executorHeld() throws InterruptedException {
        work("executor-held");
    }

    @Locked(value = "tick:executor-bare", maxWait = "0s", onTimeout = OnTimeout.SKIP)
    public void executorBare() throws InterruptedException {
        work("executor-bare");
    }

    private void work(String job) throws InterruptedException {
        runs.record(job);
        Thread.sleep(WORK_MILLIS); // the job's own work
    }
}
