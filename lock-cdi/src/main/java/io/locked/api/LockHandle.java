package io.locked.api;

import io.locked.api.event.LockRenewalFailed;
import java.util.function.Consumer;

/**
 * A held lock. Close it to release the lock (try-with-resources).
 *
 * <p>A handle belongs to one acquisition, not to a thread, and may be closed from any thread. While
 * it is open and not {@linkplain #handOver() handed over}, the thread that acquired it is inside the
 * lock's scope: acquiring the same key again on that thread is reentrant (see {@link LockManager}).
 * Before passing a handle to code that outlives the current scope (another thread, an async task
 * that closes it later), call {@link #handOver()}: from then on the acquiring thread is no longer a
 * holder and waits for the key like anyone else.
 */
public interface LockHandle extends AutoCloseable {

    /** @return the lock key this handle holds, as the request named it */
    String key();

    /** @return which of the key's holders this is: its exclusive lock, a permit, or its read/write lock's writer or a reader */
    HolderKind kind();

    /**
     * @return the number of the permit (1 to the count of permits) or the reader slot (1 to
     *         {@link LockRequest#MAX_READERS}) this handle holds; 0 for the exclusive lock and the writer.
     *         What {@link LockInfo#slot()} shows of the same hold.
     */
    int slot();

    /** @return the mode the lock is held in */
    LockMode mode();

    /**
     * The fencing token of this acquisition: strictly greater than the token of every earlier
     * acquisition of the same key, in either mode, also after idle rows were cleaned up. Pass it to
     * the resource you protect so that it can refuse writes from a holder that lost the lock.
     * Nested (reentrant) handles share the token of the outermost acquisition.
     *
     * @return the fencing token
     */
    long token();

    /**
     * Whether this acquisition still holds the lock as far as this JVM can know. An optimistic
     * lock turns invalid when a renewal fails or its lease ran out before the renewal confirmed
     * it; a pessimistic lock turns invalid when its transaction could not be kept. Once false it
     * stays false.
     *
     * @return true while the lock is believed held
     */
    boolean isValid();

    /**
     * Asks to be told when a renewal of this lock's lease fails while the lease still has time left: an
     * early warning, before the lock could be lost. The listener is called once per failed renewal (a
     * store that cannot be reached, a statement that timed out), with the time the lease is still counted
     * live; never for a renewal that succeeded, and never once the lease is known lost (then
     * {@link #isValid()} is false and {@link #close()} throws {@link LockLostException}).
     *
     * <p>It is called on the watchdog's thread that made the renewal, not on the thread that holds the
     * lock: keep it short, and hand work elsewhere. A listener that throws is logged and changes nothing.
     * Listeners are kept until the lock is released; nested (reentrant) handles share the acquisition's
     * renewals, so a listener added on any of them hears every failed renewal of the lease; so do the
     * {@link LockType#READ} handles of one JVM, which share one lease (the reader slot) until it is released. A
     * {@link LockMode#PESSIMISTIC} hold has no lease to renew: its listeners are never called.
     *
     * @param listener told of each failed renewal; not null
     * @return this handle
     * @throws NullPointerException if {@code listener} is null
     */
    LockHandle onRenewalFailure(Consumer<? super LockRenewalFailed> listener);

    /**
     * Takes this hold out of the acquiring thread's scope, keeping the lock held: the handle stays
     * valid and is closed later, by whatever code it was handed to, from any thread. After it, the
     * acquiring thread that asks for the key again is not reentrant through this handle: it waits
     * until the handle is closed, like any other caller. Calling it again, or on a closed handle,
     * does nothing.
     *
     * @return this handle
     */
    LockHandle handOver();

    /**
     * Releases this hold. The row is released when the last open handle of the acquisition is
     * closed (usually the outermost; a handed-over nested handle can outlive it). Closing twice is a
     * no-op. A nested acquisition shares the outer acquisition's mode and token, whatever mode it
     * asked for.
     *
     * @throws LockLostException if the lock was lost while held (the lease ran out or was taken
     *                           over); the row of another holder is never touched
     * @throws LockStoreUnavailableException if the database could not be reached to release; a
     *                           pessimistic lock is then freed by the database; an optimistic lease
     *                           is released by its manager once the database answers again (sent
     *                           every second while the lease lasts and the manager is open), or
     *                           expires
     */
    @Override
    void close();
}
