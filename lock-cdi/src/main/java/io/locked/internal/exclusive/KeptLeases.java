package io.locked.internal.exclusive;

import io.locked.api.LockException;
import io.locked.internal.base.Backoff;
import io.locked.internal.base.KeepSweep;
import io.locked.internal.base.KeepTimer;
import io.locked.internal.base.LockLog;
import io.locked.internal.base.TimeSource;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Leases released while nobody of this JVM waited for their key, kept a moment for the manager's next take of
 * the key ({@link io.locked.api.LockManagerBuilder#keepLeasesFor}; off unless set). That take passes the kept
 * lease to its new holder with the local hand-over's one statement (a new token, the new holder, a new lease)
 * where a release and a take were two: a thread that locks one key again and again pays one commit a cycle
 * instead of two. The moment ends on the manager's keep sweep, which then releases the lease; the row shows the
 * last holder meanwhile.
 *
 * <p>A run of such takes lasts as a run of local hand-overs does ({@link HandOvers#LEASE_RUN_NANOS}, drawn
 * anew from the run's take at the database). When it ends, the release is sent, and the key's next take here
 * first pauses as a local waiter does after a long run ({@link KeyTurns.Turn#yieldFirst}): without that gap a
 * thread that takes the key again at once would leave another JVM's waiter, polling with backoff, no instant
 * to find the row free. So another JVM waits for a run's end: measured (HandOverFairness), one thread cycling
 * with keeps made another JVM asking every 20 ms wait 0.95-1.3 s at most, 3 ms at the median.
 */
final class KeptLeases {
    /**
     * A lease kept, or (lease null) a key whose run ended, whose next take pauses until {@code untilNanos}.
     *
     * @param runSince when the run began, on the manager's clock
     * @param runNanos how long the run may last
     * @param released its last holder, told (counted and logged) of a loss found while it is kept
     */
    record Kept(Lease lease, long runSince, long runNanos, long untilNanos, Acquisition released) {
    }

    private final ConcurrentHashMap<String, Kept> kept = new ConcurrentHashMap<>();
    private final KeepSweep sweep;
    private final LockRepository repository;
    private final TimeSource time;
    /** How long a released lease stays kept; 0: not at all. */
    private volatile long keepNanos;

    KeptLeases(KeepTimer timer, LockRepository repository, TimeSource time) {
        this.sweep = new KeepSweep(timer, "a lease kept after its release");
        this.repository = repository;
        this.time = time;
    }

    void keepFor(Duration keep) {
        keepNanos = keep.toNanos();
    }

    /** @return whether released leases are kept at all: the setting is not zero */
    boolean keeping() {
        return keepNanos > 0;
    }

    /**
     * Keeps a lease its holder releases, instead of the release.
     *
     * @param lease     the lease as last confirmed, live on this JVM's count
     * @param runSince  when its run began
     * @param runNanos  how long its run may last
     * @param liveNanos how much longer it is live on this JVM's count: a lease that might run out within twice the
     *                  keep (the sweep that ends a keep may run late) is released: the next take or the keep's end
     *                  would find it gone, a loss that is none
     * @param released  its holder, releasing it: a loss found later is counted and logged as its
     * @return true if kept (or already released by the manager's close): the holder sends nothing; false: the
     *         holder releases it
     */
    boolean keep(Lease lease, long runSince, long runNanos, long liveNanos, Acquisition released) {
        long keep = keepNanos;
        if (keep == 0 || sweep.closed() || liveNanos <= 2 * keep) {
            return false;
        }
        String key = lease.key();
        long now = time.nanoTime();
        if (now - runSince >= runNanos) {
            // the run is over: released by the holder, and the next take here leaves other JVMs a gap first
            owePause(key, now);
            return false;
        }
        Kept mine = new Kept(lease, runSince, runNanos, 0, released);
        Kept before = kept.putIfAbsent(key, mine);
        // a pause owed from an earlier run no longer matters: this run's holder got the key without it
        if (before != null && (before.lease() != null || !kept.replace(key, before, mine))) {
            return false;
        }
        if (!sweep.queue(key, () -> ended(mine), sweep.nanoTime() + keep, true) || sweep.closed()) {
            // refused, or the manager closed meanwhile: whoever removes it releases it
            return !kept.remove(key, mine);
        }
        return true;
    }

    // bounded: a key whose run ended and that is never taken again leaves its mark until the marks are full
    private void owePause(String key, long now) {
        if (kept.size() >= KeepSweep.MOST_KEPT) {
            kept.values().removeIf(stale -> stale.lease() == null && now - stale.untilNanos() >= 0);
        }
        if (kept.size() < KeepSweep.MOST_KEPT) {
            kept.putIfAbsent(key, new Kept(null, 0, 0, now + 2 * Backoff.LONGEST_PAUSE_NANOS, null));
        }
    }

    /**
     * @return the key's kept lease, now the caller's to pass on or release; a key whose run just ended (lease
     *         null: pause until its {@code untilNanos} before the take); or null
     */
    Kept take(String key) {
        return kept.remove(key);
    }

    /** @return how long the key's next take must pause first: a pause owed by a run that ended, else 0 */
    long pauseOwed(Kept taken) {
        return taken == null || taken.lease() != null ? 0 : Math.max(0, taken.untilNanos() - time.nanoTime());
    }

    /**
     * Passes a kept lease to its key's next holder here, in one statement.
     *
     * @return the new holder's lease; null if the kept one was lost meanwhile (forced release, or it ran out and
     *         another took the key), or the store failed (then it is released if it can be): take the key anew
     */
    Lease passOn(Kept taken, String owner, String holder, Duration storedLease) {
        try {
            Lease passed = repository.handOverLease(taken.lease(), owner, holder, storedLease);
            if (passed == null) {
                lostWhileKept(taken);
            }
            return passed;
        } catch (LockException failed) {
            release(taken);
            return null;
        }
    }

    /** Releases a kept lease that is not taken after all; a failure leaves it to run out. */
    void release(Kept taken) {
        if (taken.lease() == null) {
            return;
        }
        try {
            if (!repository.releaseLease(taken.lease())) {
                lostWhileKept(taken);
            }
        } catch (LockException failure) {
            LockLog.storeFailed(taken.lease().key(), taken.released().holder, "releasing the lease kept after its release",
                    failure);
        }
    }

    /** The lock manager closes: nothing is kept from now on, and what is kept is released now. */
    void close() {
        sweep.close();
        for (String key : kept.keySet()) {
            Kept taken = kept.remove(key);
            if (taken != null) {
                release(taken);
            }
        }
    }

    private void ended(Kept mine) {
        if (kept.remove(mine.lease().key(), mine) && !repository.releaseLease(mine.lease())) {
            lostWhileKept(mine);
        }
    }

    // an operator's forced release, or a step of the database's clock: no holder is left to tell
    private static void lostWhileKept(Kept lost) {
        lost.released().lostAfterItsRelease("the lease kept after its release was found taken over or expired");
    }
}
