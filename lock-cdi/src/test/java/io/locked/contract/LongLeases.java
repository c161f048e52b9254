package io.locked.contract;

import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * Long jobs of one manager of a randomized run: leases of {@link TimedAcquisitions#JOB_LEASE} without a delay,
 * on keys of their own, held through the run, beside the workers' leases whose lease plus lock-delay has that
 * same length. A store that renews in batches gathers the due renewals of one manager for a part of their
 * lease: these jobs' renewals open such gatherings again and again, and a shorter lease that joined one would
 * wait past its own length if gatherings went by the stored length alone. The jobs are taken a grid step of
 * the gathering apart (a twelfth of their lease), so that their renewals fall on every step. Meanwhile a
 * scheduled job may run now and then on the workers' keys, with a minimum hold and a lock-delay
 * ({@link TimedAcquisitions#scheduledJob}).
 */
final class LongLeases {
    private static final int JOBS = 4;
    private final LockManager locks;
    private final String prefix;
    private final RandomizedHistory run;
    private final String name;
    private final Random random;
    private final TimedAcquisitions scheduled;

    private final boolean runsScheduledJob;

    /**
     * @param runsScheduledJob whether this manager also runs the scheduled job: one manager of a run does, so
     *                         that its holds keep the workers' keys taken now and then, not most of the time
     */
    LongLeases(LockManager locks, String name, String prefix, long seed, RandomizedHistory run, boolean runsScheduledJob) {
        this.runsScheduledJob = runsScheduledJob;
        this.locks = locks;
        this.name = name;
        this.prefix = prefix;
        this.run = run;
        this.random = new Random(seed);
        this.scheduled = new TimedAcquisitions(run, random, this::acquire);
    }

    private Optional<LockHandle> acquire(LockRequest request) {
        long start = System.nanoTime();
        try {
            return Optional.of(locks.acquire(request));
        } catch (LockNotAcquiredException notAcquired) {
            run.checkNamesKey(notAcquired, request.key());
            return Optional.empty();
        } catch (LockException failed) {
            run.problem("acquiring " + request + " threw " + failed);
            return Optional.empty();
        } finally {
            run.waited(request, System.nanoTime() - start);
        }
    }

    void holdUntil(long deadlineNanos) throws InterruptedException {
        List<LockHandle> jobs = new ArrayList<>();
        try {
            for (int job = 0; job < JOBS && System.nanoTime() - deadlineNanos < 0; job++) {
                LockRequest request = LockRequest.of(prefix + job).mode(LockMode.OPTIMISTIC).lease(TimedAcquisitions.JOB_LEASE)
                        .maxWait(Duration.ofSeconds(5));
                jobs.add(locks.acquire(request));
                // the jobs' pace: their renewals then fall on every step of the gathering's grid
                Thread.sleep(TimedAcquisitions.JOB_LEASE.toMillis() / 12);
            }
            for (int tick = 0; System.nanoTime() - deadlineNanos < 0; tick++) {
                if (runsScheduledJob) {
                    scheduled.scheduledJob(name + "#" + tick, run.keys().get(random.nextInt(run.keys().size())));
                }
                Thread.sleep(200 + random.nextInt(400)); // the scheduler's period: the jobs' leases last the run
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
