package io.locked.api;

import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * Takes distributed locks. Thread-safe; one instance per lock table is enough.
 *
 * <p><b>Reentrancy.</b> A nested acquisition of a key is reentrant, and returns at once with a nested
 * handle that shares the outer acquisition's token, exactly when the acquiring thread is inside its
 * own scope of that key:
 * <ul>
 *   <li>between {@link #acquire} (or {@link #tryAcquire}) and the handle's {@code close()}, on the
 *   thread that acquired it, unless the handle was {@linkplain LockHandle#handOver() handed over};</li>
 *   <li>inside the action of {@link #callLocked}, on the calling thread;</li>
 *   <li>inside the synchronous body of a {@code @Locked} method, including the body of one that
 *   returns a {@code CompletionStage} up to the moment it returns.</li>
 * </ul>
 * Anything else waits like any other caller: another thread, even one the holder started; the
 * acquiring thread after it handed the handle over or after a {@code @Locked} method returned a
 * still-running stage; and any thread once the lock is lost ({@link LockHandle#isValid()} false)
 * or its last handle is being closed. The row is released when the last handle is closed.
 *
 * <p><b>Queueing.</b> Threads of one manager that wait for the same key queue inside the JVM in
 * arrival order; only the first competes at the database (pessimistic: the first two, so that the
 * next holder already waits at the database when the holder commits), and a release lets the next
 * one go at once. An optimistic holder hands its lease straight to the next local waiter that asks
 * for the same lease. Their wait, in the queue and at the database, is bounded by their own wait.
 */
public interface LockManager extends AutoCloseable {

    /**
     * Acquires the lock, waiting up to {@link LockRequest#maxWait()}.
     *
     * @param request what to lock, not null
     * @return the held lock; close it to release
     * @throws LockNotAcquiredException      if the lock was not acquired within the wait
     * @throws LockInterruptedException      if the thread was interrupted while waiting (its interrupt
     *                                       flag stays set)
     * @throws LockStoreUnavailableException if the database failed
     * @throws IllegalArgumentException      if the request is null
     * @throws IllegalStateException         if this manager was closed
     */
    LockHandle acquire(LockRequest request);

    /**
     * Tries once, without waiting (the request's wait is ignored).
     *
     * @param request what to lock, not null
     * @return the held lock, or empty if another holder has it
     * @throws LockInterruptedException      if the thread was interrupted
     * @throws LockStoreUnavailableException if the database failed
     * @throws IllegalStateException         if this manager was closed
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
     * The lock this thread is inside of for {@code key} (see the reentrancy rules above), for a
     * fenced write from inside a {@code @Locked} method or a {@link #callLocked} action. The view
     * owns no hold: closing it does nothing.
     *
     * @param key the lock key, not null
     * @return the current lock of that key, or empty when this thread is not inside its scope
     */
    Optional<LockHandle> current(String key);

    /**
     * The innermost lock this thread is inside of; see {@link #current(String)}.
     *
     * @return the innermost current lock, or empty when this thread is inside none
     */
    Optional<LockHandle> current();

    /**
     * Stops the lease watchdog. Locks still held are not released: pessimistic ones stay held until
     * their handles are closed, optimistic leases stop being renewed and expire. Acquiring through a
     * closed manager fails with {@link IllegalStateException}.
     */
    @Override
    void close();
}
