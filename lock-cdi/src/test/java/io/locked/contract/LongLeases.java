package io.locked.contract;

import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Long jobs of one manager of a randomized run: leases of {@link TimedAcquisitions#JOB_LEASE} without a delay,
 * on keys of their own, held through the run, beside the workers' leases whose lease plus lock-delay has that
 * same length. A store that renews in batches gathers the due renewals of one manager for a part of their
 * lease: these jobs' renewals open such gatherings again and again, and a shorter lease that joined one would
 * wait past its own length if gatherings went by the stored length alone. The jobs are taken a grid step of
 * the gathering apart (a twelfth of their lease), so that their renewals fall on every step.
 */
final class LongLeases {
    private static final int JOBS = 4;
    private final LockManager locks;
    private final String prefix;
    private final RandomizedHistory run;

    LongLeases(LockManager locks, String prefix, RandomizedHistory run) {
        this.locks = locks;
        this.prefix = prefix;
        this.run = run;
    }

    void holdUntil(long deadlineNanos) throws InterruptedException {
        List<LockHandle> jobs = new ArrayList<>();
        try {
            for (int job = 0; job < JOBS && System.nanoTime() - deadlineNanos < 0; job++) {
                LockRequest request = LockRequest.of(prefix + job).mode(LockMode.OPTIMISTIC).leaseFor(TimedAcquisitions.JOB_LEASE)
                        .waitFor(Duration.ofSeconds(5));
                jobs.add(locks.acquire(request));
                // the jobs' pace: their renewals then fall on every step of the gathering's grid
                Thread.sleep(TimedAcquisitions.JOB_LEASE.toMillis() / 12);
            }
            long left = deadlineNanos - System.nanoTime();
            if (left > 0) {
                Thread.sleep(left / 1_000_000); // the jobs' work lasts the run
            }
        } catch (LockException failed) {
            run.problem("a long job of " + prefix + " was not acquired on a key of its own: " + failed);
        } finally {
            jobs.forEach(this::release);
        }
    }

    private void release(LockHandle job) {
        try {
            if (!job.isValid()) {
                run.problem("a long job's lease of " + TimedAcquisitions.JOB_LEASE + " on '" + job.key() + "' was lost");
            }
            job.close();
        } catch (LockLostException lost) {
            run.problem("a long job's lease of " + TimedAcquisitions.JOB_LEASE + " was lost: " + lost.getMessage());
        } catch (LockException failed) {
            run.problem("releasing the long job '" + job.key() + "' threw " + failed);
        }
    }
}
