package io.locked.internal;

import io.locked.api.Leadership;
import io.locked.api.LeadershipListener;
import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockInfo;
import io.locked.api.LockManager;
import io.locked.api.LockManagerClosedException;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.api.LockType;
import io.locked.internal.async.AsyncLockCalls;
import io.locked.internal.base.KeepTimer;
import io.locked.internal.base.LockKind;
import io.locked.internal.base.LockLog;
import io.locked.internal.base.LockMeter;
import io.locked.internal.base.LockMetrics;
import io.locked.internal.base.SeededBug;
import io.locked.internal.base.TimeSource;
import io.locked.internal.exclusive.Acquisition;
import io.locked.internal.exclusive.CurrentLock;
import io.locked.internal.exclusive.Draining;
import io.locked.internal.exclusive.ExclusiveLocks;
import io.locked.internal.exclusive.RowAccess;
import io.locked.internal.exclusive.ThreadScope;
import io.locked.internal.exclusive.ThreadScopes;
import io.locked.internal.leadership.Candidacy;
import io.locked.internal.lease.LeaseWatchdog;
import io.locked.internal.operations.Operators;
import io.locked.internal.permit.PermitSlots;
import io.locked.internal.readwrite.ReadWriteSlots;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRows;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

/**
 * The lock manager: it checks a request, chooses the primitive (the exclusive lock of {@link ExclusiveLocks},
 * {@link PermitSlots}, {@link ReadWriteSlots}, a {@link Candidacy}) and delegates to it; the operators'
 * calls go to {@link Operators}. Closing drains the holds and stops the lease watchdog.
 */
public final class DefaultLockManager extends AsyncLockCalls {
    private final LockRepository repository;
    private final TimeSource time;
    private final LeaseWatchdog watchdog;
    private final PermitSlots permitSlots;
    private final ReadWriteSlots readWriteSlots;
    private final Operators operators;
    private final ExclusiveLocks exclusive;
    private final LockMetrics metrics;
    private final ThreadScopes scopes = new ThreadScopes();
    private volatile boolean closed;
    private final Draining draining;
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
        this(repository, time, repository == null || time == null || watchdogThreads < 1 ? null
                : new LeaseWatchdog(watchdogThreads, repository, time), sessionCheckInterval, metrics, null);
    }

    /** With the simulation's watchdog (renewals in virtual time) and the bug a negative control seeds in any part, or null. */
    public DefaultLockManager(LockRepository repository, TimeSource time, LeaseWatchdog watchdog,
                              Duration sessionCheckInterval, LockMetrics metrics, SeededBug seededBug) {
        if (repository == null || time == null || watchdog == null || sessionCheckInterval == null
                || sessionCheckInterval.isNegative() || sessionCheckInterval.isZero() || metrics == null) {
            Optional.ofNullable(watchdog).ifPresent(LeaseWatchdog::close); // its threads end with the refused manager
            throw new IllegalArgumentException("repository, time and metrics are required, watchdog threads must be >= 1,"
                    + " the session check interval positive");
        }
        this.metrics = metrics;
        this.repository = repository;
        this.time = time;
        this.watchdog = watchdog;
        this.draining = new Draining(time);
        this.permitSlots = new PermitSlots(time);
        this.readWriteSlots = new ReadWriteSlots(time, KeepTimer.of(watchdog::once, watchdog::schedulerNanos), seededBug);
        this.operators = new Operators(repository);
        this.exclusive = new ExclusiveLocks(repository, time, watchdog, sessionCheckInterval, draining, seededBug);
    }

    /**
     * @return how many entries this JVM keeps per key now: queues, read/write states, held acquisitions and the scopes
     *         of the threads inside them; never growing with the keys no longer held or waited for (LocalStateBoundTest)
     */
    public int localKeyState() {
        return exclusive.keysInUse() + readWriteSlots.keysInUse() + draining.held() + scopes.threadsInside();
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
        return view(scopes.ofCurrentThread().findLockKey(key));
    }

    @Override
    public Optional<LockHandle> current() {
        return view(scopes.ofCurrentThread().innermost());
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
        ThreadScope scope = scopes.ofCurrentThread();
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
        requireRequest(request);
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
        ThreadScope scope = scopes.ofCurrentThread();
        LockKind kind = LockKind.of(request);
        if (kind == LockKind.EXCLUSIVE) {
            return exclusive.acquire(request, request.key(), wait, started, scope,
                    metrics.forRequest(request, wait, kind), true);
        }
        // one meter for the whole wait: a row found taken on the way is not the request's refusal
        LockMeter meter = metrics.forRequest(request, wait, kind);
        long deadline = started + ExclusiveLocks.saturatedNanos(wait);
        RowAccess rows = exclusive.rows(request, started, scope, meter);
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

    /** {@inheritDoc} ({@link LockMetrics#carryContext}) */
    @Override
    public Runnable carryContext(Runnable task) {
        return metrics.carryContext(task);
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
        return new Candidacy(this, time, role, lease, listener, candidacies).start();
    }

    /** How long a JVM's emptied optimistic reader slot stays held for its next reader or writer ({@link io.locked.api.LockManagerBuilder#keepReaderSlotsFor}). */
    public void keepReaderSlotsFor(Duration keep) { // checked by the builder, as the settings below
        readWriteSlots.keepReaderSlotsFor(keep);
    }

    /** A run of row hand-overs' bound, and a released lease's keep (LockManagerBuilder.handOverRowsFor, keepLeasesFor). */
    public void passKeysOn(Duration rowRun, Duration leaseKeep) {
        exclusive.handOverRowsFor(rowRun);
        exclusive.keepLeasesFor(leaseKeep);
    }

    /** How long {@link #close()} lets the locks still held end before it stops the watchdog. */
    public void drainFor(Duration bound) {
        this.drainBound = bound;
    }

    @Override
    public void close() {
        closed = true;
        exclusive.close();
        // a role held here moves at once; its candidacy would never release it by itself
        candidacies.forEach(Candidacy::close);
        readWriteSlots.close();
        int stillHeld = draining.awaitEnds(drainBound);
        if (stillHeld > 0 && !drainBound.isZero()) {
            LockLog.stillHeldAtClose(stillHeld, drainBound);
        }
        watchdog.close();
        closeAsyncCalls();
    }
}
