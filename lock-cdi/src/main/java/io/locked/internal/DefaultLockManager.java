package io.locked.internal;

import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.api.LockStoreUnavailableException;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.PessimisticHold;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lock algorithm: reentrancy first (no database trip for a key this thread holds), then the
 * mode's acquisition loop bounded by the request's wait.
 */
public final class DefaultLockManager implements LockManager {
    private final LockRepository repository;
    private final TimeSource time;
    private final LeaseWatchdog watchdog;
    // Each thread's held keys. The maps are concurrent because a handle may be closed from another thread.
    private final ThreadLocal<Map<String, Acquisition>> heldByThread =
            ThreadLocal.withInitial(ConcurrentHashMap::new);

    /**
     * @param repository     the lock rows
     * @param time           monotonic time, sleeping and the wall clock used for diagnostics
     * @param watchdogThreads threads that renew leases
     */
    public DefaultLockManager(LockRepository repository, TimeSource time, int watchdogThreads) {
        if (repository == null || time == null || watchdogThreads < 1) {
            throw new IllegalArgumentException("repository and time are required, watchdog threads must be >= 1");
        }
        this.repository = repository;
        this.time = time;
        this.watchdog = new LeaseWatchdog(watchdogThreads);
    }

    @Override
    public LockHandle acquire(LockRequest request) {
        LockHandle handle = acquireWithin(request, request.maxWait());
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

    private LockHandle acquireWithin(LockRequest request, Duration wait) {
        if (request == null) {
            throw new IllegalArgumentException("Lock request must not be null");
        }
        Map<String, Acquisition> held = heldByThread.get();
        Acquisition already = held.get(request.key());
        if (already != null) {
            already.enterAgain();
            return new Handle(already);
        }
        Acquisition acquisition = request.mode() == LockMode.PESSIMISTIC
                ? acquirePessimistic(request.key(), wait, held)
                : acquireOptimistic(request.key(), request.lease(), wait, held);
        if (acquisition == null) {
            return null;
        }
        held.put(request.key(), acquisition);
        return new Handle(acquisition);
    }

    private Acquisition acquirePessimistic(String key, Duration wait, Map<String, Acquisition> held) {
        String owner = newOwner();
        long deadline = time.nanoTime() + wait.toNanos();
        Backoff backoff = Backoff.standard();
        while (true) {
            long remaining = deadline - time.nanoTime();
            // the database queues us for the rest of the wait; we come back early only if the row
            // is under a live optimistic lease or the database waits in coarser steps than we do
            PessimisticHold hold = repository.lockPessimistic(key, owner, Holder.describe(time.wallClock()),
                    Duration.ofNanos(Math.max(0, remaining)));
            if (hold != null) {
                return new PessimisticAcquisition(key, owner, hold, held);
            }
            if (!pause(key, deadline, backoff)) {
                return null;
            }
        }
    }

    private Acquisition acquireOptimistic(String key, Duration leaseLength, Duration wait, Map<String, Acquisition> held) {
        String owner = newOwner();
        long deadline = time.nanoTime() + wait.toNanos();
        Backoff backoff = Backoff.standard();
        while (true) {
            long sentAt = time.nanoTime();
            Lease lease = repository.takeLease(key, owner, Holder.describe(time.wallClock()), leaseLength,
                    Duration.ofNanos(Math.max(0, deadline - sentAt)));
            if (lease != null) {
                OptimisticAcquisition acquisition =
                        new OptimisticAcquisition(lease, leaseLength, sentAt, repository, time, held);
                watchdog.watch(acquisition);
                return acquisition;
            }
            if (!pause(key, deadline, backoff)) {
                return null;
            }
        }
    }

    /** @return false when the wait is over */
    private boolean pause(String key, long deadline, Backoff backoff) {
        long remaining = deadline - time.nanoTime();
        if (remaining <= 0) {
            return false;
        }
        try {
            time.sleepNanos(backoff.nextPauseNanos(remaining));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockStoreUnavailableException(key, "interrupted while waiting for the lock", e);
        }
        return true;
    }

    private static String newOwner() {
        return UUID.randomUUID().toString();
    }

    @Override
    public void close() {
        watchdog.close();
    }
}
