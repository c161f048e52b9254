package io.locked.internal.exclusive;

import io.locked.api.LockLostException;
import io.locked.api.LockMode;
import io.locked.internal.base.LockMeter;
import io.locked.internal.base.TimeSource;
import io.locked.internal.lease.LeaseWatchdog;
import io.locked.spi.PessimisticHold;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;

/**
 * Holds the key's row lock in the store's open transaction until the last handle closes. The
 * watchdog checks now and then that the database still has that transaction: a session that died
 * (idle timeout, failover, a reset connection) lost its row lock at once, and the holder must learn
 * it then, not only at its commit.
 */
public final class PessimisticAcquisition extends Acquisition {
    private final PessimisticHold hold;
    private volatile boolean valid = true;
    private volatile String lostReason;
    private volatile ScheduledFuture<?> sessionChecks;
    /** How long a check of the session may take: that of the watchdog's checks. */
    private volatile Duration checkTimeout = Duration.ofSeconds(5);
    /** {@link ExclusiveSeededBug#LOSS_AT_RELEASE_UNTOLD}, for the simulation's negative control only. */
    boolean lossAtReleaseUntold;
    /** Whether the store may pass the row lock on ({@link io.locked.spi.LockRepository#handsOverPessimisticHolds()}). */
    boolean storeHandsOver;

    public PessimisticAcquisition(String key, String owner, String holder, PessimisticHold hold, ThreadScope scope,
                           KeyTurns.Turn turn, LockMeter meter, TimeSource time) {
        super(key, owner, holder, hold.token(), scope, turn, meter, time);
        this.hold = hold;
    }

    /**
     * Passes the row lock, in its transaction, to the next thread of this JVM that waits for the key
     * ({@link PessimisticHold#handOver}): one statement, where a release and the next thread's lock would
     * end the transaction and begin another. The statement ran in the transaction that held the row all
     * along, so this hold was held until its end: released, not lost.
     *
     * @return true if handed over; false if nobody waits, the key was passed around for long enough, or the
     *         store did not pass it on (then the release that follows ends the transaction, and tells
     *         whether the hold was lost)
     */
    private boolean handOverToSuccessor() {
        // where the store never passes a row on, no waiter is held up as the reserved one
        HandOvers.Wish next = storeHandsOver ? turn.reserveSuccessor(null) : null;
        if (next == null) {
            return false;
        }
        PessimisticHold passed;
        try {
            passed = hold.handOver(next.owner(), next.holder());
        } catch (RuntimeException failed) {
            // the release that follows ends the transaction, and says whether the hold was still held then
            return false;
        }
        if (passed == null) {
            return false;
        }
        turn.handedOver(new HandOvers.HandedRow(passed));
        return true;
    }

    @Override
    LockMode mode() {
        return LockMode.PESSIMISTIC;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    /**
     * @param every   how often the hold's session is checked
     * @param timeout each check's bound, {@link #checkTimeout(Duration)} of {@code every}: computed once per
     *                manager, not per hold ({@code Duration.dividedBy} goes through {@code BigDecimal})
     */
    public void checkSessionsWith(LeaseWatchdog watchdog, Duration every, Duration timeout) {
        checkTimeout = timeout;
        sessionChecks = watchdog.every(every, () -> checkSession(timeout));
    }

    /** @return a session check's bound: half its interval, at most 5 s */
    public static Duration checkTimeout(Duration every) {
        Duration half = every.dividedBy(2);
        return half.compareTo(Duration.ofSeconds(5)) > 0 ? Duration.ofSeconds(5) : half;
    }

    /**
     * Asks the session while the row is held; once released, the release's commit has answered: a hold
     * whose release found its transaction gone counts as lost, as it does for its holder.
     */
    @Override
    public boolean confirmHeld() {
        if (valid) {
            checkSession(checkTimeout);
        }
        return lostReason == null;
    }

    @Override
    public PessimisticHold.AnotherRow lockAnotherRow(String rowKey, boolean shared) {
        return hold.lockAnotherRow(rowKey, shared);
    }

    /**
     * No monitor of the acquisition is held across the check's round trip: the holder's own calls (a
     * re-entry, its close) do not wait for it. The store orders the check and the release on the hold's
     * connection; a release begun meanwhile has the last word.
     */
    private void checkSession(Duration timeout) {
        if (!valid || hold.isAlive(timeout)) {
            return;
        }
        synchronized (this) {
            if (!valid) {
                return;
            }
            lostReason = "its database session ended while it was held (checked by the watchdog)";
            valid = false;
            stopChecks();
            lost(lostReason);
        }
    }

    private void stopChecks() {
        ScheduledFuture<?> checks = sessionChecks;
        if (checks != null) {
            checks.cancel(false);
        }
    }

    @Override
    void releaseRow() {
        stopChecks();
        boolean wasValid = valid;
        valid = false;
        // a minimum hold keeps the key from this JVM's next thread too: no hand-over while it lasts
        if (wasValid && !holdsPastRelease() && handOverToSuccessor()) {
            return;
        }
        boolean released = holdsPastRelease() ? hold.release(holdAtLeast()) : hold.release();
        if ((!wasValid || !released) && !lossAtReleaseUntold) {
            if (lostReason == null) {
                lostReason = "its transaction had already ended (connection lost)";
            }
            throw new LockLostException(key, token, lostReason);
        }
    }
}
