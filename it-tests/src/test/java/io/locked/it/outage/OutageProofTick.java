package io.locked.it.outage;

import io.locked.api.LockException;
import io.locked.api.LockManager;
import io.locked.api.LockRequest;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * The task of the programmatic recipe in docs/scheduled-jobs.md, as a user writes it for
 * {@code ScheduledExecutorService.scheduleAtFixedRate}: try the key once, run the job if it is free,
 * and catch the lock's failures, which would otherwise cancel the schedule for good.
 */
final class OutageProofTick implements Runnable {
    private final LockManager locks;
    private final LockRequest request;
    private final LongConsumer job;
    private final Consumer<LockException> lostTick;

    /**
     * @param job      the job, given the fencing token
     * @param lostTick what the recipe logs: a tick the store's outage or a lost lock cost
     */
    OutageProofTick(LockManager locks, LockRequest request, LongConsumer job, Consumer<LockException> lostTick) {
        this.locks = locks;
        this.request = request;
        this.job = job;
        this.lostTick = lostTick;
    }

    @Override
    public void run() {
        try {
            locks.tryAcquire(request).ifPresent(lock -> {
                try (lock) {
                    job.accept(lock.token());
                }
            });
        } catch (LockException outage) {
            lostTick.accept(outage);
        }
    }
}
