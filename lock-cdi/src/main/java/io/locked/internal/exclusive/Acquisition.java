package io.locked.internal.exclusive;

import io.locked.api.LockLostException;
import io.locked.api.LockMode;
import io.locked.api.LockStoreUnavailableException;
import io.locked.api.event.LockRenewalFailed;
import io.locked.internal.base.LockLog;
import io.locked.internal.base.LockMeter;
import io.locked.internal.base.RowKeys;
import io.locked.internal.base.TimeSource;
import io.locked.spi.PessimisticHold;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * One acquisition of a key: the unit that owns the lock row, with the handles opened on it.
 *
 * <p>Two counts decide its life. {@code holds}: open handles; the last close releases the row, once,
 * and the acquisition is then finished for good: nothing revives it. {@code scopedHolds}: open
 * handles that are still inside the acquiring thread's scope, neither handed over nor closed. Only
 * while that count is above zero does the acquiring thread find the acquisition in its
 * {@link ThreadScope} and re-enter it; a handed-over handle keeps the row held but no longer lets
 * that thread in.
 */
public abstract class Acquisition {
    private static final Runnable NOTHING = () -> { };
    public final String key;
    /** Whose row {@link #key} is: the lock key, which of its holders, the slot. */
    final RowKeys.Place place;
    final String owner;
    /** Who holds it (host, pid, thread), for the log. */
    final String holder;
    public final long token;
    private final ThreadScope scope;
    final KeyTurns.Turn turn;
    private final LockMeter meter;
    private final TimeSource time;
    private final long acquiredAtNanos;
    /** How long after the acquisition the key stays taken; zero: the release frees it. */
    private volatile Duration holdAtLeast = Duration.ZERO;
    /** Run once, when the last handle closed (after the release, failed or not): the manager's drain. */
    private volatile Runnable whenFinished = NOTHING;
    /** Run after {@link #whenFinished}: a write's end, for its key's readers of this JVM. */
    private volatile Runnable thenFinished = NOTHING;
    /** Told of each renewal that failed while the lease was live ({@link RenewalWarnings}); read without a lock. */
    private volatile Object renewalListeners;
    private int holds;
    private int scopedHolds;
    private boolean finished;
    private boolean lossLogged;

    Acquisition(String key, String owner, String holder, long token, ThreadScope scope, KeyTurns.Turn turn,
                LockMeter meter, TimeSource time) {
        this.key = key;
        this.place = RowKeys.placeOfHold(key);
        this.owner = owner;
        this.holder = holder;
        this.token = token;
        this.scope = scope;
        this.turn = turn;
        this.meter = meter;
        this.time = time;
        this.acquiredAtNanos = time.nanoTime();
    }

    abstract LockMode mode();

    /** Set once, before the first handle: the request's minimum hold. */
    public void holdAtLeast(Duration hold) {
        this.holdAtLeast = hold;
    }

    /**
     * A re-entry asks for a minimum hold too: the longest of the entries' holds applies, counted from this
     * acquisition, as the outermost entry's does.
     */
    public synchronized void holdAtLeastNoLessThan(Duration hold) {
        if (hold.compareTo(holdAtLeast) > 0) {
            holdAtLeast = hold;
        }
    }

    /**
     * Whether the release must keep the key taken: the minimum hold may not have passed yet. Counted
     * on this JVM from when the store answered the acquisition, which is after the database set the
     * row's acquisition time: when this says it has passed, it has on the database's clock too. When it
     * has not, the store decides on that clock.
     */
    boolean holdsPastRelease() {
        return !holdAtLeast.isZero() && time.nanoTime() - acquiredAtNanos < holdAtLeast.toNanos();
    }

    Duration holdAtLeast() {
        return holdAtLeast;
    }

    /** Sets, once, the action to run when the last handle closed; before that handle is closed. */
    void whenFinished(Runnable action) {
        this.whenFinished = action;
    }

    /**
     * Sets, once, an action to run after {@link #whenFinished}'s; before the last handle is closed. Apart,
     * so that only writes pay for a second action, not every exclusive acquisition.
     */
    public void thenFinished(Runnable action) {
        this.thenFinished = action;
    }

    public abstract boolean isValid();

    /**
     * Asks the store, where the hold can be lost without this JVM's knowing (a pessimistic hold's session),
     * whether it is still held, or was until its release; marks it lost if not. Elsewhere it answers what
     * this JVM knows: a loss found so far, not a release (after which {@link #isValid()} is false too).
     *
     * @return whether it is still held, or was until its release
     */
    public boolean confirmHeld() {
        return !lossKnown();
    }

    /**
     * Locks one more row in the hold's transaction, without waiting, until the release
     * ({@link PessimisticHold#lockAnotherRow}).
     *
     * @throws IllegalStateException for a hold without a transaction (a lease)
     */
    public PessimisticHold.AnotherRow lockAnotherRow(String rowKey, boolean shared) {
        throw new IllegalStateException("A " + mode() + " hold of '" + key + "' has no transaction to lock '" + rowKey
                + "' in");
    }

    /**
     * Frees the row. Called once, after the last handle closed.
     *
     * @throws io.locked.api.LockLostException if the lock turned out to be lost
     */
    abstract void releaseRow();

    /** Adds a listener of failed renewals ({@link io.locked.api.LockHandle#onRenewalFailure}). */
    synchronized void onRenewalFailure(Consumer<? super LockRenewalFailed> listener) {
        renewalListeners = RenewalWarnings.add(renewalListeners, listener);
    }

    /** A renewal failed while the lease was still live for {@code timeLeft}: tells the listeners. */
    void warnOfFailedRenewal(Duration timeLeft, RuntimeException failure) {
        Object listeners = renewalListeners;
        if (listeners != null) {
            RenewalWarnings.tell(listeners, new LockRenewalFailed(place.key(), mode(), token, timeLeft,
                    String.valueOf(failure.getMessage())), key);
        }
    }

    /** A store call made while the lock is held failed; the lock may still be held. */
    void storeFailed(LockMeter.StoreOperation operation) {
        meter.storeFailed(operation);
    }

    /**
     * The lock is known lost: logged and counted once, and the next thread of this JVM may compete for the key at
     * once, as other JVMs already may, instead of queueing behind a holder that holds nothing any more.
     */
    void lost(String reason) {
        logLossOnce(reason);
        turn.end();
    }

    /** A loss found after the release, with nobody left to tell (a lease kept after it, {@link KeptLeases}): counted and logged. */
    void lostAfterItsRelease(String reason) {
        logLossOnce(reason);
    }

    private void logLossOnce(String reason) {
        synchronized (this) {
            if (lossLogged) {
                return;
            }
            lossLogged = true;
        }
        meter.lost();
        LockLog.lost(key, mode(), token, holder, reason);
    }

    /** A re-entry found the acquisition invalid: make that final, then let the next thread in. */
    void lostAtReentry() {
        lost("found no longer valid when its holder entered it again");
    }

    /** The first handle, opened inside the acquiring thread's scope. */
    public synchronized Handle firstHandle() {
        holds = 1;
        scopedHolds = 1;
        return new Handle(this);
    }

    /**
     * A nested handle for the acquiring thread, or null when the acquisition can no longer be
     * entered: its row is being released, it left the thread's scope, or the lock was lost.
     */
    public synchronized Handle enterAgain() {
        if (finished || scopedHolds == 0) {
            return null;
        }
        if (!isValid()) {
            lostAtReentry();
            return null;
        }
        holds++;
        scopedHolds++;
        return new Handle(this);
    }

    /** The handle leaves the acquiring thread's scope, still holding the row. */
    void handOver(Handle handle) {
        boolean leftScope;
        synchronized (this) {
            if (handle.closed || !handle.scoped) {
                return;
            }
            handle.scoped = false;
            leftScope = --scopedHolds == 0;
        }
        if (leftScope) {
            scope.leave(this);
        }
    }

    /** Closes one handle; the last one releases the row. A second close of a handle does nothing. */
    void close(Handle handle) {
        boolean leftScope;
        boolean last;
        synchronized (this) {
            if (handle.closed) {
                return;
            }
            handle.closed = true;
            leftScope = handle.scoped && --scopedHolds == 0;
            last = --holds == 0;
            if (last) {
                finished = true;
            }
        }
        if (leftScope) {
            scope.leave(this);
        }
        if (last) {
            LockMeter.HoldOutcome outcome = LockMeter.HoldOutcome.FAILED;
            try {
                releaseRow();
                outcome = LockMeter.HoldOutcome.RELEASED;
                LockLog.released(key, mode(), token);
            } catch (LockLostException lostAtRelease) {
                logLossOnce(lostAtRelease.getMessage());
                for (Throwable releaseFailure : lostAtRelease.getSuppressed()) {
                    if (releaseFailure instanceof LockStoreUnavailableException) {
                        meter.storeFailed(LockMeter.StoreOperation.RELEASE);
                    }
                }
                throw lostAtRelease;
            } catch (LockStoreUnavailableException storeDown) {
                meter.storeFailed(LockMeter.StoreOperation.RELEASE);
                throw storeDown;
            } finally {
                turn.end();
                meter.holdEnded(time.nanoTime() - acquiredAtNanos, lossKnown() ? LockMeter.HoldOutcome.LOST : outcome);
                try {
                    whenFinished.run();
                } finally {
                    thenFinished.run();
                }
            }
        }
    }

    private synchronized boolean lossKnown() {
        return lossLogged;
    }
}
