package io.locked.contract;

import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Function;

/**
 * The acquisitions of a {@link RandomWorker} whose key outlasts the holder's own view of it: a minimum hold
 * ({@code holdAtLeast}) longer than the work, and a lock-delay whose lease plus delay is the length of other
 * leases of the run ({@link LongLeases}, and plain acquisitions of {@link #JOB_LEASE}), so that renewals of
 * both kinds meet in one batch, and a lease with a delay may be handed over to one without, and back.
 */
final class TimedAcquisitions {
    /** The lease of the run's long jobs, and the lease plus delay of every acquisition with a lock-delay. */
    static final Duration JOB_LEASE = Duration.ofSeconds(3);
    /**
     * A lock-delay's lease: a second, renewed while its holder works (under {@link #DELAYED_WORK_MILLIS}). A
     * stall of the loaded machine or of an embedded database (H2 waits its lock timeout, 2 s, behind a busy
     * row) can still outrun it, so a loss of it told to its holder counts as a short lease's: what the run
     * must catch of a lock-delay is a hold dropped while the row stays the holder's, which the minimum-hold
     * check sees, not a loss the holder was told of.
     */
    private static final Duration DELAYED_LEASE = Duration.ofSeconds(1);
    private static final int DELAYED_WORK_MILLIS = 600;
    /**
     * The lease of an optimistic minimum hold: short, so that renewals are due every few tens of milliseconds
     * and one is often in flight when the holder releases; a loss of it is a short lease's.
     */
    private static final Duration HELD_LEASE = Duration.ofMillis(250);
    /** The shortest work under a minimum hold: past {@link #HELD_LEASE}. */
    private static final int HELD_WORK_MILLIS = 300;
    private static final List<Duration> WAITS = List.of(Duration.ZERO, Duration.ofMillis(150), Duration.ofMillis(1500));
    private final RandomizedHistory run;
    private final Random random;
    private final Function<LockRequest, Optional<LockHandle>> acquire;

    TimedAcquisitions(RandomizedHistory run, Random random, Function<LockRequest, Optional<LockHandle>> acquire) {
        this.run = run;
        this.random = random;
        this.acquire = acquire;
    }

    /**
     * A hold of a few hundred milliseconds with work shorter than it, by a third of them each: pessimistic,
     * optimistic on a short lease, and optimistic on a short lease with a lock-delay (a lease lost on its
     * holder's count is then still the holder's in the store, and its release must leave the hold). The work
     * outlasts the short lease, so that renewals are due while it runs and one may be in flight at the
     * release, and a renewal that waits past the lease makes a loss; it ends a while before the hold does, so
     * that others are kept waiting by the hold alone.
     */
    void minimumHold(String name, String key) {
        minimumHold(name, key, random.nextInt(3));
    }

    /**
     * A job that must run at most once per period on a key shared with the workers, as a scheduled job with
     * {@code holdAtLeast} does, on a short lease with a lock-delay: {@link LongLeases} runs it again and again
     * beside its jobs' leases, whose renewals it may share a batch with.
     */
    void scheduledJob(String name, String key) {
        minimumHold(name, key, 2);
    }

    /** @param kind 0 pessimistic, 1 optimistic, 2 optimistic with a lock-delay */
    private void minimumHold(String name, String key, int kind) {
        LockMode mode = kind == 0 ? LockMode.PESSIMISTIC : LockMode.OPTIMISTIC;
        Duration hold = Duration.ofMillis(HELD_WORK_MILLIS + 100 + random.nextInt(500));
        long workMillis = HELD_WORK_MILLIS + random.nextInt((int) hold.toMillis() - HELD_WORK_MILLIS - 100 + 1);
        LockRequest request = LockRequest.of(key).mode(mode).maxWait(WAITS.get(random.nextInt(WAITS.size())))
                .holdAtLeast(hold);
        Duration delay = Duration.ZERO;
        if (mode == LockMode.OPTIMISTIC) {
            request = request.lease(HELD_LEASE);
            if (kind == 2) {
                delay = JOB_LEASE.minus(HELD_LEASE);
                request = request.lockDelay(delay);
            }
        }
        String holder = name + "/hold" + (mode == LockMode.PESSIMISTIC ? "P" : "O");
        long asked = System.nanoTime();
        Optional<LockHandle> held = acquire.apply(request);
        if (held.isEmpty()) {
            return;
        }
        Left left = leave(key, held.get(), workMillis);
        boolean shortLease = mode == LockMode.OPTIMISTIC;
        run.record(key, new CriticalSection(holder, held.get().token(), left.enter, left.exit, left.told()), shortLease);
        run.held(new MinimumHold(key, holder, held.get().token(), asked, left.enter, hold.toNanos(), left.closed, left.lossReason,
                mode == LockMode.OPTIMISTIC ? HELD_LEASE.toNanos() : 0, delay.toNanos()));
    }

    /** An optimistic lease of {@link #DELAYED_LEASE} with a lock-delay that makes it {@link #JOB_LEASE} in the store. */
    void lockDelay(String name, String key) {
        LockRequest request = LockRequest.of(key).mode(LockMode.OPTIMISTIC).maxWait(WAITS.get(random.nextInt(WAITS.size())))
                .lease(DELAYED_LEASE).lockDelay(JOB_LEASE.minus(DELAYED_LEASE));
        int workMillis = random.nextInt(DELAYED_WORK_MILLIS);
        acquire.apply(request).ifPresent(held -> {
            Left left = leave(key, held, workMillis);
            run.record(key, new CriticalSection(name + "/delayO", held.token(), left.enter, left.exit, left.told()), true);
        });
    }

    private record Left(long enter, long exit, long closed, String lossReason) {
        boolean told() {
            return lossReason != null;
        }
    }

    private Left leave(String key, LockHandle held, long workMillis) {
        long enter = System.nanoTime();
        RandomWorker.work(workMillis);
        long exit = System.nanoTime();
        String reason = held.isValid() ? null : "invalid when it left";
        try {
            held.close();
        } catch (LockLostException lost) {
            run.checkNamesKey(lost, key);
            run.told(key, held.token(), lost.getMessage());
            reason = lost.getMessage();
        } catch (LockException failed) {
            run.problem("closing '" + key + "' (token " + held.token() + ") threw " + failed);
        }
        return new Left(enter, exit, System.nanoTime(), reason);
    }
}
