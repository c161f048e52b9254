package io.locked.quarkus.app;

import io.locked.api.LockMode;
import io.locked.api.Locked;
import io.locked.api.OnTimeout;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * Scheduled jobs as users write them on a cluster of Quarkus instances: {@code @Scheduled} on each
 * instance, {@code @Locked} to skip when another instance has the key. The held ones keep their key
 * for 1.5 s of each 2 s period ({@code holdAtLeast}); the bare ones are the form without it, whose
 * double runs the scheduler test shows. Off unless the instance is given a schedule
 * ({@code locked-app.tick.cron}, {@code locked-app.tick.every}).
 */
@ApplicationScoped
public class TickJobs {
    /** How long a run takes: short, as most housekeeping jobs are. */
    private static final long WORK_MILLIS = 20;

    @Inject
    JobRuns runs;

    @Scheduled(cron = "${locked-app.tick.cron:off}", identity = "held-cron")
    @Locked(value = "tick:held-cron", maxWait = "0s", onTimeout = OnTimeout.SKIP, holdAtLeast = "1500ms")
    void heldCron() throws InterruptedException {
        work("held-cron");
    }

    @Scheduled(cron = "${locked-app.tick.cron:off}", identity = "bare-cron")
    @Locked(value = "tick:bare-cron", maxWait = "0s", onTimeout = OnTimeout.SKIP)
    void bareCron() throws InterruptedException {
        work("bare-cron");
    }

    @Scheduled(every = "${locked-app.tick.every:off}", identity = "held-every")
    @Locked(value = "tick:held-every", maxWait = "0s", onTimeout = OnTimeout.SKIP, holdAtLeast = "1500ms")
    void heldEvery() throws InterruptedException {
        work("held-every");
    }

    @Scheduled(every = "${locked-app.tick.every:off}", identity = "bare-every")
    @Locked(value = "tick:bare-every", maxWait = "0s", onTimeout = OnTimeout.SKIP)
    void bareEvery() throws InterruptedException {
        work("bare-every");
    }

    /**
     * The non-blocking form: a {@code Uni}, which Quarkus' scheduler runs on the event loop; its database
     * write goes to a worker, and the lock is held until the {@code Uni} completes.
     */
    @Scheduled(every = "${locked-app.tick.every:off}", identity = "held-uni")
    @Locked(value = "tick:held-uni", maxWait = "0s", onTimeout = OnTimeout.SKIP, holdAtLeast = "1500ms")
    Uni<Void> heldUni() {
        return Uni.createFrom().<Void>item(() -> {
            runs.record("held-uni");
            return null;
        }).runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
    }

    /**
     * A job that runs for 3 s under a 40 s lease: stopping the instance that runs it must not leave
     * the key taken for the lease's rest (the manager drains at shutdown).
     */
    @Scheduled(every = "${locked-app.handover.every:off}", identity = "handover")
    @Locked(value = "tick:handover", mode = LockMode.OPTIMISTIC, lease = "40s", maxWait = "0s",
            onTimeout = OnTimeout.SKIP)
    void handover() throws InterruptedException {
        runs.record("handover-start");
        Thread.sleep(3000); // the job's own work
        runs.record("handover-end");
    }

    private void work(String job) throws InterruptedException {
        runs.record(job);
        Thread.sleep(WORK_MILLIS); // the job's own work
    }
}
