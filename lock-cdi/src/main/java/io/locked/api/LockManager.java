package io.locked.api;

import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * Takes distributed locks. Thread-safe; one instance per lock table is enough.
 *
 * <p>Reentrancy: a thread that already holds a key (in any mode) gets a nested handle at once; the
 * lock is released when the outermost handle is closed.
 */
public interface LockManager extends AutoCloseable {

    /**
     * Acquires the lock, waiting up to {@link LockRequest#maxWait()}.
     *
     * @param request what to lock, not null
     * @return the held lock; close it to release
     * @throws LockNotAcquiredException      if the lock was not acquired within the wait
     * @throws LockStoreUnavailableException if the database failed
     * @throws IllegalArgumentException      if the request is null
     */
    LockHandle acquire(LockRequest request);

    /**
     * Tries once, without waiting (the request's wait is ignored).
     *
     * @param request what to lock, not null
     * @return the held lock, or empty if another holder has it
     * @throws LockStoreUnavailableException if the database failed
     */
    Optional<LockHandle> tryAcquire(LockRequest request);

    /**
     * Runs {@code action} while holding the lock, then releases it.
     *
     * @param request what to lock, not null
     * @param action  what to run, not null
     * @param <T>     the action's result type
     * @return what the action returned
     * @throws LockNotAcquiredException if the lock was not acquired within the wait (the action did not run)
     * @throws LockLostException        if the action ran but the lock was lost meanwhile; the action's
     *                                  own exception, if any, takes precedence and carries this one as suppressed
     * @throws Exception                whatever the action threw
     */
    <T> T callLocked(LockRequest request, Callable<T> action) throws Exception;

    /**
     * Stops the lease watchdog. Locks still held are not released: pessimistic ones stay held until
     * their handles are closed, optimistic leases stop being renewed and expire.
     */
    @Override
    void close();
}
