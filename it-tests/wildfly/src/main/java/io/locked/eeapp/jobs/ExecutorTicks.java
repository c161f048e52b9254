package io.locked.eeapp.jobs;

import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Jakarta Concurrency's form: the server's default managed scheduled executor runs each job at a
 * fixed rate of 2 s, calling it through the CDI bean's proxy, which applies {@code @Locked}. The
 * first run is at the next even second of the instance's own clock, as a job aligned to the clock
 * is, so that the instances' clocks set their triggers apart as they do the EJB timers'.
 */
@ApplicationScoped
public class ExecutorTicks {
    private static final Logger LOG = Logger.getLogger(ExecutorTicks.class.getName());
    private static final long PERIOD_MILLIS = 2000;
    private final List<ScheduledFuture<?>> scheduled = new ArrayList<>();
    @Resource(lookup = "java:comp/DefaultManagedScheduledExecutorService")
    ManagedScheduledExecutorService executor;
    @Inject
    TickJobs jobs;

    synchronized void start() {
        stop(); // armed again: one schedule per job all the same
        long firstDelay = PERIOD_MILLIS - System.currentTimeMillis() % PERIOD_MILLIS;
        scheduled.add(executor.scheduleAtFixedRate(() -> run(jobs::executorHeld), firstDelay, PERIOD_MILLIS,
                TimeUnit.MILLISECONDS));
        scheduled.add(executor.scheduleAtFixedRate(() -> run(jobs::executorBare), firstDelay, PERIOD_MILLIS,
                TimeUnit.MILLISECONDS));
    }

    synchronized void stop() {
        scheduled.forEach(future -> future.cancel(false));
        scheduled.clear();
    }

    /** A fixed-rate task that throws is never run again: a failed run is logged, and the next one still comes. */
    private static void run(Job job) {
        try {
            job.run();
        } catch (Exception e) {
            LOG.log(Level.WARNING, "a scheduled job failed", e);
        }
    }

    @FunctionalInterface
    private interface Job {
        void run() throws Exception;
    }
}
