package io.locked.internal;

import io.locked.internal.base.Backoff;
import io.locked.internal.base.Holder;
import io.locked.internal.base.LockLog;
import io.locked.internal.base.LockMeter;
import io.locked.internal.exclusive.Handle;
import io.locked.internal.exclusive.OptimisticAcquisition;
import io.locked.internal.exclusive.PessimisticAcquisition;
import io.locked.internal.exclusive.RowAccess;
import io.locked.api.Leadership;
import io.locked.api.LeadershipListener;
import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockInfo;
import io.locked.api.LockInterruptedException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerClosedException;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.api.LockStoreUnavailableException;
import io.locked.api.LockType;
import io.locked.internal.base.LockKind;
import io.locked.internal.base.LockMetrics;
import io.locked.internal.base.TimeSource;
import io.locked.internal.exclusive.Acquisition;
import io.locked.internal.exclusive.CurrentLock;
import io.locked.internal.exclusive.Draining;
import io.locked.internal.exclusive.KeyTurns;
import io.locked.internal.exclusive.ThreadScope;
import io.locked.internal.leadership.Candidacy;
import io.locked.internal.lease.LeaseWatchdog;
import io.locked.internal.operations.Operators;
import io.locked.internal.permit.PermitSlots;
import io.locked.internal.readwrite.ReadWriteSlots;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRowState;
import io.locked.spi.LockRows;
import io.locked.spi.NoConnectionException;
import io.locked.spi.PessimisticHold;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

/**
 * The lock algorithm: reentrancy first (no database trip for a key this thread's scope holds),
 * then the key's JVM-local queue, then the mode's acquisition loop, all bounded by the request's wait.
 */
public final class DefaultLockManager implements LockManager {
    private final LockRepository repository;
    private final TimeSource time;
    private final LeaseWatchdog watchdog;
    private final Duration sessionCheckInterval;
    private final KeyTurns turns;
    private final PermitSlots permitSlots;
    private final ReadWriteSlots readWriteSlots;
    private final Operators operators;
    private final LockMetrics metrics;
    private final ThreadLocal<ThreadScope> scopes = ThreadLocal.withInitial(ThreadScope::new);
    private volatile boolean closed;
    private final Draining draining = new Draining();
    private final Set<Candidacy> candidacies = ConcurrentHashMap.newKeySet();
    private volatile Duration drainBound = Duration.ZERO;

    /**
     * @param repository     the lock rows
     * @param time           monotonic time, sleeping and the wall clock used for diagnostics
     * @param watchdogThreads threads that schedule lease renewals and session checks of pessimistic holds
     * @param sessionCheckInterval how often a pessimistic hold's session is checked, positive
     * @param metrics        where acquisitions, holds, losses and store failures are reported
     */
    public DefaultLockManager(LockRepository repository, TimeSource time, int watchdogThreads,
                              Duration sessionCheckInterval, LockMetrics metrics) {
        if (repository == null || time == null || watchdogThreads < 1 || sessionCheckInterval == null
                || sessionCheckInterval.isNegative() || sessionCheckInterval.isZero() || metrics == null) {
            throw new IllegalArgumentException("repository, time and metrics are required, watchdog threads must be >= 1,"
                    + " the session check interval positive");
        }
        this.metrics = metrics;
        this.repository = repository;
        this.time = time;
        this.watchdog = new LeaseWatchdog(watchdogThreads, repository, time);
        this.turns = new KeyTurns(time);
        this.permitSlots = new PermitSlots(time);
        this.readWriteSlots = new ReadWriteSlots(time, watchdog::once);
        this.operators = new Operators(repository);
        this.sessionCheckInterval = sessionCheckInterval;
    }

    @Override
    public LockHandle acquire(LockRequest request) {
        LockHandle handle = acquireWithin(request, request == null ? null : request.maxWait());
        if (handle == null) {
            throw new LockNotAcquiredException(request.key(), request.maxWait());
        }
        return handle;
    }

    @Override
    public Optional<LockHandle> tryAcquire(LockRequest request) {
        return Optional.ofNullable(acquireWithin(request, Duration.ZERO));
    }

    @Override
    public <T> T callLocked(LockRequest request, Callable<T> action) throws Exception {
        if (action == null) {
            throw new IllegalArgumentException("action must not be null for key '" + request.key() + "'");
        }
        LockHandle handle = acquire(request);
        T result;
        try {
            result = action.call();
        } catch (Throwable failure) {
            try {
                handle.close();
            } catch (LockException releaseFailure) {
                failure.addSuppressed(releaseFailure);
            }
            throw failure;
        }
        handle.close();
        return result;
    }

    @Override
    public Optional<LockHandle> current(String key) {
        if (key == null) {
            throw new IllegalArgumentException("Lock key must not be null");
        }
        return view(scopes.get().findLockKey(key));
    }

    @Override
    public Optional<LockHandle> current() {
        return view(scopes.get().innermost());
    }

    @Override
    public LockInfo inspect(String key) {
        return operators.inspect(key);
    }

    @Override
    public List<LockInfo> list(String prefix, LockInfo after, int limit) {
        return operators.list(prefix, after, limit);
    }

    @Override
    public Optional<LockInfo> forceRelease(String key) {
        return operators.forceRelease(key, Duration.ZERO);
    }

    @Override
    public Optional<LockInfo> forceRelease(String key, Duration lockDelay) {
        return operators.forceRelease(key, lockDelay);
    }

    @Override
    public Optional<LockInfo> forceRelease(LockInfo holder) {
        return operators.forceRelease(holder, Duration.ZERO);
    }

    @Override
    public Optional<LockInfo> forceRelease(LockInfo holder, Duration lockDelay) {
        return operators.forceRelease(holder, lockDelay);
    }

    @Override
    public List<LockInfo> holders(String key) {
        return operators.holders(key);
    }

    @Override
    public List<LockInfo> forceReleaseAll(String key) {
        return operators.forceReleaseAll(key);
    }

    /**
     * @return whether this thread is inside a hold that the request would enter again, without a statement:
     *         asked only once the manager closes (an acquisition that must go to the store after all is
     *         refused there)
     */
    private boolean reentersItsOwnHold(LockRequest request) {
        ThreadScope scope = scopes.get();
        String key = request.key();
        return switch (LockKind.of(request)) {
            case EXCLUSIVE -> scope.find(key) != null;
            case PERMIT -> IntStream.rangeClosed(1, request.permits())
                    .anyMatch(slot -> scope.find(LockRows.permitSlot(key, slot)) != null);
            case READ -> scope.find(LockRows.writer(key)) != null || readWriteSlots.readsNow(key);
            case WRITE -> scope.find(LockRows.writer(key)) != null;
        };
    }

    private static Optional<LockHandle> view(Acquisition acquisition) {
        return acquisition == null ? Optional.empty() : Optional.of(new CurrentLock(acquisition));
    }

    private LockHandle acquireWithin(LockRequest request, Duration wait) {
        if (request == null) {
            throw new IllegalArgumentException("Lock request must not be null");
        }
        if (closed && !reentersItsOwnHold(request)) {
            // the drain lets holders finish, re-entries of their own keys included: those take no lock
            throw new LockManagerClosedException("This LockManager is closed; cannot acquire '" + request.key() + "'");
        }
        Optional<String> refusal = repository.refusal(request.mode(), request.type());
        if (refusal.isPresent()) {
            throw new IllegalStateException("Cannot acquire '" + request.key() + "' " + request.mode()
                    + (request.type() == LockType.EXCLUSIVE ? "" : " " + request.type()) + ": " + refusal.get());
        }
        long started = time.nanoTime();
        ThreadScope scope = scopes.get();
        LockKind kind = LockKind.of(request);
        if (kind == LockKind.EXCLUSIVE) {
            return acquireKey(request, request.key(), wait, started, scope,
                    metrics.forLock(request.name(), request.mode(), kind), true);
        }
        // one meter for the whole wait: a row found taken on the way is not the request's refusal
        LockMeter meter = metrics.forLock(request.name(), request.mode(), kind);
        long deadline = started + saturatedNanos(wait);
        RowAccess rows = new RowAccess() {
            @Override
            public LockHandle take(String rowKey, Duration rowWait) {
                return acquireKey(request, rowKey, rowWait, started, scope, meter, false);
            }

            @Override
            public LockRowState inspect(String rowKey) {
                return repository.inspect(rowKey)
                        .orElseGet(() -> new LockRowState(rowKey, null, null, null, null, null, null, null));
            }

            @Override
            public boolean createRow(String rowKey) {
                return repository.createRow(rowKey);
            }

            @Override
            public List<LockRowState> inspectAll(List<String> rowKeys) {
                return repository.inspectAll(rowKeys);
            }

            @Override
            public List<LockRowState> inspectLeases(List<String> rowKeys) {
                return repository.inspectLeases(rowKeys);
            }

            @Override
            public void joined() {
                meter.acquired(time.nanoTime() - started);
            }
        };
        LockHandle held = switch (kind) {
            case PERMIT -> permitSlots.acquire(request, scope, deadline, rows);
            case READ -> readWriteSlots.read(request, scope, deadline, rows);
            default -> readWriteSlots.write(request, scope, deadline, rows);
        };
        if (held == null) {
            meter.notAcquired(time.nanoTime() - started);
        }
        return held;
    }

    /**
     * @param key            the request's key, or one of its permit slots
     * @param wait           how long to wait for it
     * @param started        when the request's wait began, for its metrics
     * @param countRefusal   whether running out of wait counts as the request's refusal in the metrics
     */
    private LockHandle acquireKey(LockRequest request, String key, Duration wait, long started, ThreadScope scope,
                                  LockMeter meter, boolean countRefusal) {
        Acquisition outer = scope.find(key);
        if (outer != null) {
            Handle nested = outer.enterAgain();
            if (nested != null) {
                // the key stays taken for the longest minimum hold of its entries, counted from the acquisition
                outer.holdAtLeastNoLessThan(request.holdAtLeast());
                return nested;
            }
            // being released, or lost: never revived; this acquisition goes to the database afresh
            scope.leave(key, outer);
        }
        long waitNanos = saturatedNanos(wait);
        long deadline = time.nanoTime() + waitNanos;
        String owner = newOwner();
        String holder = Holder.describe(time.wallClock());
        boolean optimistic = request.mode() == LockMode.OPTIMISTIC;
        KeyTurns.Turn turn;
        try {
            turn = awaitTurn(key, waitNanos, optimistic
                    ? new KeyTurns.LeaseWish(owner, holder, request.lease().plus(request.lockDelay())) : null);
        } catch (LockInterruptedException interrupted) {
            meter.failed(time.nanoTime() - started);
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
            // a lease handed over with the turn is given back by watch(), which refuses a closed manager too
            if (closed && turn.handed() == null) {
                throw new LockManagerClosedException("This LockManager was closed while '" + key + "' was being waited for");
            }
            acquisition = optimistic
                    ? acquireOptimistic(key, owner, holder, request, deadline, scope, turn, meter)
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
            meter.failed(time.nanoTime() - started);
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
            meter.acquired(time.nanoTime() - started);
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

    private KeyTurns.Turn awaitTurn(String key, long waitNanos, KeyTurns.LeaseWish wish) {
        try {
            return turns.await(key, waitNanos, wish);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(key, interrupted);
        }
    }

    private Acquisition acquirePessimistic(String key, String owner, String holder, long deadline, ThreadScope scope,
                                           KeyTurns.Turn turn, LockMeter meter) {
        Backoff backoff = Backoff.standard();
        while (true) {
            long remaining = deadline - time.nanoTime();
            // the database queues us for the rest of the wait; we come back early only if the row
            // is under a live optimistic lease or the database waits in coarser steps than we do
            PessimisticHold hold = repository.lockPessimistic(key, owner, holder, Duration.ofNanos(Math.max(0, remaining)));
            if (hold != null) {
                PessimisticAcquisition acquisition = new PessimisticAcquisition(key, owner, holder, hold, scope, turn, meter, time);
                acquisition.checkSessionsWith(watchdog, sessionCheckInterval);
                return acquisition;
            }
            if (!backoff.pause(time, key, deadline)) {
                return null;
            }
        }
    }

    private Acquisition acquireOptimistic(String key, String owner, String holder, LockRequest request, long deadline,
                                          ThreadScope scope, KeyTurns.Turn turn, LockMeter meter) {
        Duration leaseLength = request.lease();
        KeyTurns.HandedLease handed = turn.handed();
        if (handed != null) {
            // the previous local holder passed its live lease on: no statement of our own
            OptimisticAcquisition acquisition = new OptimisticAcquisition(handed.lease(), holder, leaseLength,
                    request.lockDelay(), handed.sentAtNanos(), repository, time, scope, turn, meter);
            watch(acquisition);
            return acquisition;
        }
        Backoff backoff = Backoff.standard();
        // twice the longest pause: a waiter elsewhere polls every pause plus a round trip
        if (turn.yieldFirst() && !Backoff.sleep(time, key, deadline, 2 * Backoff.LONGEST_PAUSE_NANOS)) {
            return null;
        }
        while (true) {
            long sentAt = time.nanoTime();
            Lease lease = repository.takeLease(key, owner, holder, leaseLength.plus(request.lockDelay()),
                    Duration.ofNanos(Math.max(0, deadline - sentAt)));
            if (lease != null) {
                OptimisticAcquisition acquisition =
                        new OptimisticAcquisition(lease, holder, leaseLength, request.lockDelay(), sentAt, repository, time,
                                scope, turn, meter);
                watch(acquisition);
                return acquisition;
            }
            if (!backoff.pause(time, key, deadline)) {
                return null;
            }
        }
    }

    // A manager closed while the lease was being taken cannot renew it: give the lease back at once.
    private void watch(OptimisticAcquisition acquisition) {
        if (!closed && watchdog.watch(acquisition)) {
            return;
        }
        try {
            repository.releaseLease(acquisition.lease());
        } catch (LockException releaseFailure) {
            // the lease expires on its own
        }
        throw new LockManagerClosedException("This LockManager was closed while '" + acquisition.key + "' was being acquired");
    }


    // a wait of centuries means "as long as it takes", not an overflow
    private static long saturatedNanos(Duration wait) {
        return wait.compareTo(Duration.ofDays(36_500)) > 0 ? Duration.ofDays(36_500).toNanos() : wait.toNanos();
    }

    private static String newOwner() {
        return UUID.randomUUID().toString();
    }

    /**
     * @return whether the lease watchdog runs, which renews optimistic leases and checks pessimistic
     *         holds: false once this manager is closed, or when the watchdog's thread is stuck
     */
    public boolean watchdogAlive() {
        return !closed && watchdog.isAlive();
    }

    @Override
    public Leadership campaign(String role, Duration lease, LeadershipListener listener) {
        if (closed) {
            throw new LockManagerClosedException("This LockManager is closed; cannot campaign for '" + role + "'");
        }
        return new Candidacy(this, role, lease, listener, candidacies).start();
    }

    /** How long a JVM's emptied optimistic reader slot stays held for its next reader or writer ({@link io.locked.api.LockManagerBuilder#keepReaderSlotsFor}). */
    public void keepReaderSlotsFor(Duration keep) {
        if (keep == null || keep.isNegative()) {
            throw new IllegalArgumentException("The keep of a reader slot must be zero or positive, was " + keep);
        }
        readWriteSlots.keepReaderSlotsFor(keep);
    }

    /** How long {@link #close()} lets the locks still held end before it stops the watchdog. */
    public void drainFor(Duration bound) {
        if (bound == null || bound.isNegative()) {
            throw new IllegalArgumentException("The drain must be zero or positive, was " + bound);
        }
        this.drainBound = bound;
    }

    @Override
    public void close() {
        closed = true;
        // a role held here moves at once; its candidacy would never release it by itself
        candidacies.forEach(Candidacy::close);
        readWriteSlots.close();
        int stillHeld = draining.awaitEnds(drainBound);
        if (stillHeld > 0 && !drainBound.isZero()) {
            LockLog.stillHeldAtClose(stillHeld, drainBound);
        }
        watchdog.close();
    }
}
