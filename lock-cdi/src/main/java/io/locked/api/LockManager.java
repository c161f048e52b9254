package io.locked.api;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

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
     * @throws LockNotAcquiredException      if the lock was not acquired within the wait (reason
     *                                       {@code HELD}), or the store got no connection within its
     *                                       connection wait (reason {@code NO_CONNECTION}, at once,
     *                                       without waiting out the rest of the wait)
     * @throws LockInterruptedException      if the thread was interrupted while waiting (its interrupt
     *                                       flag stays set)
     * @throws LockStoreUnavailableException if the database failed
     * @throws IllegalArgumentException      if the request is null
     * @throws IllegalStateException         if this manager was closed
     */
    LockHandle acquire(LockRequest request);

    /**
     * Tries once, without waiting for another holder (the request's wait is ignored); the store may
     * still wait its connection wait ({@code locked.connection-wait}) for a connection.
     *
     * @param request what to lock, not null
     * @return the held lock, or empty if another holder has it
     * @throws LockNotAcquiredException      of reason {@code NO_CONNECTION} if the store got no
     *                                       connection within its connection wait: whether another
     *                                       holder has the key is not known then
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
     * @throws LockNotAcquiredException if the lock was not acquired within the wait, or the store got no
     *                                  connection (see {@link LockNotAcquiredException#reason()}; the action did not run)
     * @throws LockLostException        if the action ran but the lock was lost meanwhile; the action's
     *                                  own exception, if any, takes precedence and carries this one as suppressed
     * @throws Exception                whatever the action threw
     */
    <T> T callLocked(LockRequest request, Callable<T> action) throws Exception;

    /**
     * Acquires the lock as {@link #acquire} does, without blocking the calling thread: for an event loop, a
     * reactive pipeline, or any caller that must not wait. The wait runs on the manager's executor of
     * asynchronous acquisitions ({@link LockManagerBuilder#asyncExecutor}; by default a virtual thread per
     * acquisition on Java 21+, else a daemon thread of an unbounded pool, so that no acquisition waits for a
     * thread), with the same wait, lease, queueing and outcomes.
     *
     * <p>The hold belongs to no thread: it is {@linkplain LockHandle#handOver() handed over} as soon as it is
     * got, so no thread is reentrant through it, and a nested acquisition of its key waits like any other.
     * Close the handle, from any thread, when the work is done. Cancelling the stage while it waits ends the
     * wait (the waiting thread is interrupted); a hold got as the stage was cancelled is released at once.
     *
     * @param request what to lock, not null
     * @return a stage that completes with the held lock, or exceptionally with what {@link #acquire} throws
     *         ({@link LockNotAcquiredException}, {@link LockStoreUnavailableException},
     *         {@link LockManagerClosedException}, ...), never wrapped; cancelled when the caller cancels it
     * @throws IllegalArgumentException if the request is null
     */
    CompletionStage<LockHandle> acquireAsync(LockRequest request);

    /**
     * Tries once, as {@link #tryAcquire} does, without blocking the calling thread (see
     * {@link #acquireAsync} for where it runs and what the hold is).
     *
     * @param request what to lock, not null
     * @return a stage that completes with the held lock, or empty if another holder has it, or exceptionally
     *         with what {@link #tryAcquire} throws
     * @throws IllegalArgumentException if the request is null
     */
    CompletionStage<Optional<LockHandle>> tryAcquireAsync(LockRequest request);

    /**
     * Runs asynchronous work while holding the lock: acquires as {@link #acquireAsync} does, then calls
     * {@code action} with the hold on the thread that got it, and releases the lock when the action's stage
     * completes, whichever way. Cancelling the returned stage while it waits for the lock ends the wait and
     * the action never runs; once the action runs, a cancel does not end the hold before the action's own
     * stage completes, since the work it started may still be running.
     *
     * @param request what to lock, not null
     * @param action  the work under the lock, given the hold (for its {@link LockHandle#token() token}); it
     *                must not close the hold, and must return a stage, not null
     * @param <T>     the work's result type
     * @return a stage with the work's result; or failed with the acquisition's failure (the action did not
     *         run), with the work's own failure (carrying a failed release as suppressed), or with
     *         {@link LockLostException} if the work succeeded but the lock was lost meanwhile
     * @throws IllegalArgumentException if the request or the action is null
     */
    <T> CompletionStage<T> callLockedAsync(LockRequest request, Function<LockHandle, ? extends CompletionStage<T>> action);

    /**
     * The innermost lock this thread is inside of for {@code key} (see the reentrancy rules above): the
     * key's exclusive lock, one of its permits or its read/write lock's writer ({@link LockHandle#kind()}
     * says which; a reader's hold belongs to its JVM's group of readers, not to the thread), for a fenced
     * write from inside a {@code @Locked} method or a {@link #callLocked} action. The view owns no hold:
     * closing it does nothing.
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
     * Who holds a key's exclusive lock right now, as the lock table says, for operators: across every JVM
     * that shares the table and in both modes (see {@link LockInfo} for what each database can show of a
     * pessimistic holder in another JVM). Reads the table; never waits for the lock. For the holders of
     * the key's permits and read/write lock, see {@link #holders}.
     *
     * @param key the lock key, checked as {@link LockRequest#of} checks it
     * @return the state of the key's exclusive lock; a key that has no row is free
     * @throws IllegalArgumentException      if the key is not a valid lock key
     * @throws LockStoreUnavailableException if the table cannot be read
     * @throws IllegalStateException         if the lock store cannot be inspected (a store of the SPI that
     *                                       leaves inspection out)
     */
    LockInfo inspect(String key);

    /**
     * One page of the holders' places whose keys start with a prefix, held and free alike, in key order
     * (for one key: its exclusive lock, then its permits, its reader slots and its writer, in the table's
     * order), each as {@link #inspect} reads it. For the next page pass the last element of this one as
     * {@code after}; a page shorter than {@code limit} is the last.
     *
     * @param prefix what the keys start with, not null; empty for every key
     * @param after  the last element of the previous page, or null for the first page
     * @param limit  the most places to return, 1 to 1000
     * @return up to {@code limit} places
     * @throws IllegalArgumentException      if the prefix is null or the limit out of range
     * @throws LockStoreUnavailableException if the table cannot be read
     * @throws IllegalStateException         if the lock store cannot be inspected (a store of the SPI that
     *                                       leaves inspection out)
     */
    List<LockInfo> list(String prefix, LockInfo after, int limit);

    /**
     * Every current holder of a key, for operators: its exclusive holder, the writer and each JVM's
     * reader slot of its read/write lock ({@link LockRequest#type()}), and the holder of each of its
     * permits ({@link LockRequest#permits()}), each as {@link #inspect} reads it and told apart by its
     * {@link LockInfo#kind()} and {@link LockInfo#slot()}. Pass one to {@link #forceRelease(LockInfo)} to
     * end that one holder.
     *
     * @param key the lock key
     * @return the holders in {@link HolderKind} order (exclusive, writer, readers, permits), each kind in
     *         slot order; empty when none holds the key
     * @throws IllegalArgumentException      if the key is not a valid lock key
     * @throws LockStoreUnavailableException if the table cannot be read
     * @throws IllegalStateException         if the lock store cannot be inspected (a store of the SPI that
     *                                       leaves inspection out)
     */
    List<LockInfo> holders(String key);

    /**
     * Ends the hold of a key's exclusive lock, for operators: a stuck job, a holder that will never
     * finish. An optimistic lease is freed; a pessimistic holder's database session is ended, which rolls
     * its transaction back (the native statements on MariaDB, MySQL, PostgreSQL and H2; the database user
     * needs the right to end that session). Only the hold found is ended: a holder that released meanwhile
     * is left alone, and so is the work its pool lent the same database session to since
     * (docs/operations.md says how close the check and the end are on each database). Either way the key's
     * token is raised and so is its fence row: the old holder's {@link LockHandle#isValid()} turns false at
     * its next renewal or session check, its {@code close()} throws {@link LockLostException}, a
     * {@code LockLost} event is fired, and its fenced writes are refused. Logged at WARNING, naming the key
     * and the old holder.
     *
     * @param key the lock key
     * @return the hold that was ended, empty if the key was free or the hold found ended by itself before
     *         it could be ended (then nothing was ended; the key may have a new holder)
     * @throws IllegalArgumentException      if the key is not a valid lock key
     * @throws IllegalStateException         if the holder's session cannot be ended on this store (a
     *                                       pessimistic hold on the JPA path), or the store has no forced
     *                                       release (a store of the SPI that leaves it out)
     * @throws LockStoreUnavailableException if the database failed or refused to end the session
     */
    Optional<LockInfo> forceRelease(String key);

    /**
     * Ends the key's exclusive hold as {@link #forceRelease(String)} does, then keeps the key taken for
     * {@code lockDelay} on the database's clock before anyone may take it: the lock-delay after an
     * abnormal end, for resources that cannot check fencing tokens. Inspection shows the delay as an
     * optimistic lease of no acquisition of any JVM.
     *
     * @param key       the lock key
     * @param lockDelay how long the key stays taken after the end, zero or positive, at most 365 days
     * @return as {@link #forceRelease(String)}
     * @throws IllegalArgumentException for a bad key or delay; otherwise as {@link #forceRelease(String)}
     */
    Optional<LockInfo> forceRelease(String key, Duration lockDelay);

    /**
     * Ends one holder's hold as {@link #forceRelease(String)} ends an exclusive one: the writer, one JVM's
     * reader slot or one permit, as {@link #holders} or {@link #list} returned it.
     *
     * @param holder what {@link #holders}, {@link #list} or {@link #inspect} returned, not null
     * @return as {@link #forceRelease(String)}
     * @throws IllegalArgumentException for a null holder, or one whose key or slot is out of range;
     *                                  otherwise as {@link #forceRelease(String)}
     */
    Optional<LockInfo> forceRelease(LockInfo holder);

    /**
     * Ends one holder's hold as {@link #forceRelease(LockInfo)} does, then keeps its place taken for
     * {@code lockDelay} as {@link #forceRelease(String, Duration)} does.
     *
     * @param holder    what {@link #holders}, {@link #list} or {@link #inspect} returned, not null
     * @param lockDelay how long the place stays taken after the end, zero or positive, at most 365 days
     * @return as {@link #forceRelease(String)}
     * @throws IllegalArgumentException for a bad holder or delay; otherwise as {@link #forceRelease(String)}
     */
    Optional<LockInfo> forceRelease(LockInfo holder, Duration lockDelay);

    /**
     * Ends every current hold of a key, each as {@link #forceRelease(LockInfo)} ends one, as
     * {@link #holders} lists them at the start.
     *
     * @param key the lock key
     * @return the holds that were ended
     * @throws IllegalArgumentException if the key is not a valid lock key; otherwise as
     *                                  {@link #forceRelease(String)}, after the holds before the failing one were ended
     */
    List<LockInfo> forceReleaseAll(String key);

    /**
     * Campaigns for a role that one JVM holds at a time (a cluster singleton, a leader): a thread of
     * its own waits for the role's optimistic lock (key: the role's name) and tells the listener when
     * a term begins and ends ({@link Leadership}). Closing the manager closes its candidacies first,
     * so that the role moves at once.
     *
     * @param role     the role's name: a lock key (not blank, at most 255 characters)
     * @param lease    the role's lease: a killed leader is replaced once it has run out; at least 1 ms
     * @param listener told of each term's beginning and end
     * @return the candidacy; close it to give the role up and stop competing
     * @throws IllegalArgumentException for a bad role or lease, or a null listener
     * @throws LockManagerClosedException if this manager is closing or closed
     */
    Leadership campaign(String role, Duration lease, LeadershipListener listener);

    /**
     * Stops granting locks, waits for the locks still held to be released within the drain bound
     * ({@link LockManagerBuilder#drainOnClose}; the CDI manager's {@code locked.shutdown.drain},
     * 10 s by default), renewing their leases meanwhile, then stops the lease watchdog. Locks still
     * held after that are not released: pessimistic ones stay held until their handles are closed,
     * optimistic leases stop being renewed and expire. Minimum holds ({@code holdAtLeast}) already
     * left in the store stay until their end. Acquiring through a closing or closed manager fails
     * with {@link IllegalStateException}.
     */
    @Override
    void close();
}
