package io.locked.internal.exclusive;

import io.locked.api.LockHandle;
import io.locked.api.LockMode;
import io.locked.internal.base.LockMeter;
import io.locked.internal.base.TimeSource;
import io.locked.internal.lease.RenewalSchedule;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import java.time.Clock;
import java.time.Duration;

/**
 * Holds of rows in an in-memory table, for model checking the structures built on {@link RowAccess}
 * ({@code ReadWriteModelTest}): an {@code OPTIMISTIC} acquisition whose lease never runs out, which frees
 * its row in that table when its last handle closes; and leases held as the manager holds them, for model
 * checking their renewals ({@link #heldLease}). Time stands still, as in {@link KeyTurnsModelTest}.
 */
public final class ModelHolds {
    /** A clock that never moves: a wait ends only when what it waits for changes. */
    public static final TimeSource FROZEN = new TimeSource() {
        @Override
        public long nanoTime() {
            return 0;
        }

        @Override
        public Clock wallClock() {
            return Clock.systemUTC();
        }

        @Override
        public void sleepNanos(long nanos) {
            throw new AssertionError("the models do not sleep");
        }

        // no random draw of a run of hand-overs' bound (time stands still, so it changes nothing): Lincheck
        // replays a failing interleaving to print its trace, and a draw that came out otherwise on the replay
        // would end the test with "GPMC trace is expected" instead of the failure found
        @Override
        public long spread(long origin, long bound) {
            return origin;
        }
    };

    private ModelHolds() {
    }

    /**
     * @param release frees the row in the table; runs once, when the last handle closes
     * @return the first handle of a new hold of the row, in the calling thread's scope
     */
    public static LockHandle hold(String rowKey, long token, Runnable release) {
        KeyTurns.Turn turn;
        try {
            // a queue of its own: the table, not this JVM's queue, decides who holds the row here
            turn = new KeyTurns(FROZEN, () -> false).await(rowKey, 0, null);
        } catch (InterruptedException unexpected) {
            throw new AssertionError(unexpected);
        }
        ThreadScope scope = new ThreadScopes().ofCurrentThread();
        ModelAcquisition acquisition = new ModelAcquisition(rowKey, token, scope, turn, release);
        scope.enter(acquisition);
        return acquisition.firstHandle();
    }

    /**
     * A lease held as the lock manager holds one ({@link OptimisticAcquisition}), with its renewals turned on
     * as the watchdog's schedule turns them on, for model checking its renewals ({@code LeaseRenewalsModelTest}).
     * Its holder opens and closes its handle ({@link Acquisition#firstHandle()}); time stands still, so it stays
     * valid until released or found lost.
     *
     * @param renewals stands for the watchdog's schedule of its renewals, cancelled at the release
     */
    public static OptimisticAcquisition heldLease(Lease lease, Duration length, LockRepository repository,
                                                  RenewalSchedule renewals) {
        KeyTurns.Turn turn;
        try {
            turn = new KeyTurns(FROZEN, () -> false).await(lease.key(), 0, null);
        } catch (InterruptedException unexpected) {
            throw new AssertionError(unexpected);
        }
        OptimisticAcquisition acquisition = new OptimisticAcquisition(lease, "model", length, Duration.ZERO, 0, repository,
                FROZEN, new ThreadScopes().ofCurrentThread(), turn, LockMeter.NONE);
        acquisition.startRenewal(renewals);
        return acquisition;
    }

    private static final class ModelAcquisition extends Acquisition {
        private final Runnable release;

        ModelAcquisition(String rowKey, long token, ThreadScope scope, KeyTurns.Turn turn, Runnable release) {
            super(rowKey, "model", "model", token, scope, turn, LockMeter.NONE, FROZEN);
            this.release = release;
        }

        @Override
        LockMode mode() {
            return LockMode.OPTIMISTIC;
        }

        @Override
        public boolean isValid() {
            return true;
        }

        @Override
        void releaseRow() {
            release.run();
        }
    }
}
