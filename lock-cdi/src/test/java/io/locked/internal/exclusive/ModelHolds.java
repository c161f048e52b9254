package io.locked.internal.exclusive;

import io.locked.api.LockHandle;
import io.locked.api.LockMode;
import io.locked.internal.base.LockMeter;
import io.locked.internal.base.TimeSource;
import java.time.Clock;

/**
 * Holds of rows in an in-memory table, for model checking the structures built on {@link RowAccess}
 * ({@code ReadWriteModelTest}): an {@code OPTIMISTIC} acquisition whose lease never runs out, which frees
 * its row in that table when its last handle closes. Time stands still, as in {@link KeyTurnsModelTest}.
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
            turn = new KeyTurns(FROZEN).await(rowKey, 0, null);
        } catch (InterruptedException unexpected) {
            throw new AssertionError(unexpected);
        }
        ThreadScope scope = new ThreadScopes().ofCurrentThread();
        ModelAcquisition acquisition = new ModelAcquisition(rowKey, token, scope, turn, release);
        scope.enter(acquisition);
        return acquisition.firstHandle();
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
