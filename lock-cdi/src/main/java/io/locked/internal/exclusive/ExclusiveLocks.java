package io.locked.internal.exclusive;

import io.locked.api.LockRequest;
import io.locked.api.LockHandle;
import io.locked.api.LockMode;
import io.locked.api.LockException;
import io.locked.api.LockInterruptedException;
import io.locked.api.LockManagerClosedException;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockStoreUnavailableException;
import io.locked.internal.base.Backoff;
import io.locked.internal.base.Holder;
import io.locked.internal.base.KeepTimer;
import io.locked.internal.base.LockLog;
import io.locked.internal.base.LockMeter;
import io.locked.internal.base.SeededBug;
import io.locked.internal.base.TimeSource;
import io.locked.internal.lease.LeaseWatchdog;
import io.locked.spi.LockRepository;
import io.locked.spi.NoConnectionException;
import io.locked.spi.PessimisticHold;
import java.time.Duration;
import java.util.UUID;

/**
 * One row taken as an exclusive lock, for every primitive: reentrancy first (no database trip for a key
 * this thread's scope holds), then the key's JVM-local queue, then the mode's acquisition loop, all
 * bounded by the request's wait. The exclusive lock is one such row; a permit, a reader slot and a
 * writer are others, which the permits and read/write locks take through {@link #rows}.
 */
public final class ExclusiveLocks {
    private final LockRepository repository;
    private final TimeSource time;
    private final LeaseWatchdog watchdog;
    private final Duration sessionCheckInterval;
    private final Duration sessionCheckTimeout;
    private final KeyTurns turns;
    private final Draining draining;
    private final KeptLeases keptLeases;
    private final ReleaseRetries releaseRetries;
    private final LeaseTakes leases;
    private volatile boolean closed;
    /** A bug seeded for the negative controls only (DrainModelTest, SimulationTest); null everywhere else. */
    private final ExclusiveSeededBug seededBug;

    /**
     * @param repository           the lock rows
     * @param time                 monotonic time, sleeping and the wall clock used for diagnostics
     * @param watchdog             renews optimistic leases and checks pessimistic holds' sessions
     * @param sessionCheckInterval how often a pessimistic hold's session is checked, positive
     * @param draining             the holds the manager's close waits for
     * @param seededBug            a bug seeded for a negative control, or null (another part's is ignored)
     */
    public ExclusiveLocks(LockRepository repository, TimeSource time, LeaseWatchdog watchdog, Duration sessionCheckInterval,
                          Draining draining, SeededBug seededBug) {
        this.seededBug = seededBug instanceof ExclusiveSeededBug mine ? mine : null;
        this.repository = repository;
        this.time = time;
        this.watchdog = watchdog;
        this.sessionCheckInterval = sessionCheckInterval;
        this.sessionCheckTimeout = PessimisticAcquisition.checkTimeout(sessionCheckInterval);
        this.turns = new KeyTurns(time, HandOvers.askedOnce(repository::handsOverPessimisticHolds));
        KeepTimer timer = KeepTimer.of(watchdog::once, watchdog::schedulerNanos);
        this.keptLeases = new KeptLeases(timer, repository, time);
        this.releaseRetries = new ReleaseRetries(timer);
        this.leases = new LeaseTakes(repository, time, watchdog, keptLeases, releaseRetries, this::closing, this.seededBug);
        this.draining = draining;
    }

    /**
     * @param run the longest run of row hand-overs between this manager's threads ({@link
     *            io.locked.api.LockManagerBuilder#handOverRowsFor}); zero: rows are not passed on
     */
    public void handOverRowsFor(Duration run) {
        turns.rowRunsFor(run.toNanos());
    }

    /**
     * @param keep how long a lease released while nobody here waits for its key stays kept for the next take
     *             ({@link io.locked.api.LockManagerBuilder#keepLeasesFor}); zero: not at all
     */
    public void keepLeasesFor(Duration keep) {
        keptLeases.keepFor(keep);
    }

    /**
     * From now on no new hold is granted: a lease taken meanwhile is given back at once, none is kept, and no
     * failed release is sent again.
     */
    public void close() {
        closed = true;
        keptLeases.close();
        releaseRetries.close();
    }

    /**
     * @return what a permit's or a read/write lock's request takes its rows through: each row acquired as
     *         here, within the request's wait and under its meter
     */
    public RowAccess rows(LockRequest request, long started, ThreadScope scope, LockMeter meter) {
        return new RequestRows(this, repository, request, started, scope, meter);
    }

    /** @return whether the manager began to close ({@link RowAccess#closing}) */
    boolean closing() {
        return closed;
    }

    long nanoTime() {
        return time.nanoTime();
    }

    /**
     * @param key            the request's key, or one of its permit slots
     * @param wait           how long to wait for it
     * @param started        when the request's wait began, for its metrics
     * @param countRefusal   whether running out of wait counts as the request's refusal in the metrics
     */
    public LockHandle acquire(LockRequest request, String key, Duration wait, long started, ThreadScope scope,
                              LockMeter meter, boolean countRefusal) {
        Acquisition outer = seededBug == ExclusiveSeededBug.REFUSES_REENTRY && closed ? null : scope.find(key);
        if (outer != null) {
            Handle nested = outer.enterAgain();
            if (nested != null) {
                // the key stays taken for the longest minimum hold of its entries, counted from the acquisition
                outer.holdAtLeastNoLessThan(request.holdAtLeast());
                return nested;
            }
            // being released, or lost: never revived; this acquisition goes to the database afresh
            scope.leave(outer);
        }
        long waitNanos = saturatedNanos(wait);
        long deadline = time.nanoTime() + waitNanos;
        String owner = UUID.randomUUID().toString();
        String holder = Holder.describe(time.wallClock());
        boolean optimistic = request.mode() == LockMode.OPTIMISTIC;
        KeyTurns.Turn turn;
        try {
            turn = awaitTurn(key, waitNanos, new HandOvers.Wish(owner, holder,
                    optimistic ? request.lease().plus(request.lockDelay()) : null));
        } catch (LockInterruptedException interrupted) {
            meter.failed(time.nanoTime() - started, interrupted);
            throw interrupted;
        }
        if (turn == null) {
            if (countRefusal) {
                meter.notAcquired(time.nanoTime() - started);
            }
            return null;
        }
        Acquisition acquisition;
        try {
            // a lease or row lock handed over with the turn is given back below, where a closed manager is refused too
            if (closed && turn.handed() == null) {
                throw new LockManagerClosedException("This LockManager was closed while '" + key + "' was being waited for");
            }
            acquisition = optimistic
                    ? leases.acquire(key, owner, holder, request, deadline, scope, turn, meter)
                    : acquirePessimistic(key, owner, holder, deadline, scope, turn, meter);
        } catch (NoConnectionException none) {
            // not an answer about the key: asking again at once would only spin on the same shortage
            turn.end();
            meter.noConnection(time.nanoTime() - started);
            throw new LockNotAcquiredException(request.key(), wait, LockNotAcquiredException.Reason.NO_CONNECTION, none.getMessage());
        } catch (RuntimeException | Error failure) {
            turn.end();
            if (failure instanceof LockStoreUnavailableException storeDown) {
                LockLog.storeFailed(key, holder, "acquiring", storeDown);
                meter.storeFailed(LockMeter.StoreOperation.ACQUIRE);
            }
            meter.failed(time.nanoTime() - started, failure);
            throw failure;
        }
        if (acquisition == null) {
            turn.end();
            if (countRefusal) {
                meter.notAcquired(time.nanoTime() - started);
            }
            return null;
        }
        acquisition.holdAtLeast(request.holdAtLeast());
        draining.track(acquisition);
        Handle first = acquisition.firstHandle();
        scope.enter(acquisition);
        try {
            meter.acquired(time.nanoTime() - started, acquisition.token);
            // a close after the look above may have drained before this hold was tracked: tracked, then looked at
            // again, a hold is one the drain waits for or one given back here (DrainModelTest found the gap)
            if (closed && seededBug != ExclusiveSeededBug.GRANTED_PAST_THE_DRAIN) {
                throw new LockManagerClosedException("This LockManager was closed while '" + key + "' was being acquired");
            }
            if (LockLog.fine()) {
                LockLog.acquired(key, request.mode(), acquisition.token, holder, time.nanoTime() - started);
            }
        } catch (RuntimeException | Error reportFailed) {
            // the caller never sees the handle: release the row, the connection and the turn now
            closeUnseen(first, reportFailed);
            throw reportFailed;
        }
        return first;
    }

    private static void closeUnseen(Handle handle, Throwable cause) {
        try {
            handle.close();
        } catch (RuntimeException | Error releaseFailed) {
            cause.addSuppressed(releaseFailed);
        }
    }

    private KeyTurns.Turn awaitTurn(String key, long waitNanos, HandOvers.Wish wish) {
        try {
            return turns.await(key, waitNanos, wish);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(key, interrupted);
        }
    }

    private Acquisition acquirePessimistic(String key, String owner, String holder, long deadline, ThreadScope scope,
                                           KeyTurns.Turn turn, LockMeter meter) {
        if (turn.handed() instanceof HandOvers.HandedRow handed) {
            // the previous local holder passed its row lock on, in its transaction: no statement of our own
            if (closed) {
                throw givenBack(handed.hold(), key);
            }
            return pessimistic(key, owner, holder, handed.hold(), scope, turn, meter);
        }
        Backoff backoff = Backoff.standard();
        while (true) {
            long remaining = deadline - time.nanoTime();
            // the database queues us for the rest of the wait; we come back early only if the row
            // is under a live optimistic lease or the database waits in coarser steps than we do
            PessimisticHold hold = repository.lockPessimistic(key, owner, holder, Duration.ofNanos(Math.max(0, remaining)));
            if (hold != null) {
                return pessimistic(key, owner, holder, hold, scope, turn, meter);
            }
            if (!backoff.pause(time, key, deadline)) {
                return null;
            }
        }
    }

    private PessimisticAcquisition pessimistic(String key, String owner, String holder, PessimisticHold hold,
                                               ThreadScope scope, KeyTurns.Turn turn, LockMeter meter) {
        PessimisticAcquisition acquisition = new PessimisticAcquisition(key, owner, holder, hold, scope, turn, meter, time);
        acquisition.lossAtReleaseUntold = seededBug == ExclusiveSeededBug.LOSS_AT_RELEASE_UNTOLD;
        acquisition.storeHandsOver = turns.rowsHandedOver();
        acquisition.checkSessionsWith(watchdog, sessionCheckInterval, sessionCheckTimeout);
        return acquisition;
    }

    /** A row lock handed to a manager that closed meanwhile: its transaction ends at once. */
    private static LockManagerClosedException givenBack(PessimisticHold hold, String key) {
        try {
            hold.release();
        } catch (LockException releaseFailure) {
            // the transaction ends with its connection, whatever the release said
        }
        return new LockManagerClosedException("This LockManager was closed while '" + key + "' was being acquired");
    }

    /** @return how many keys have a local queue: those held, queued for or asked for right now */
    public int keysInUse() {
        return turns.keysInUse();
    }

    // a wait of centuries means "as long as it takes", not an overflow
    public static long saturatedNanos(Duration wait) {
        return wait.compareTo(Duration.ofDays(36_500)) > 0 ? Duration.ofDays(36_500).toNanos() : wait.toNanos();
    }
}
