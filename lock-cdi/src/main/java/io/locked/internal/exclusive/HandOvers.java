package io.locked.internal.exclusive;

import io.locked.internal.base.TimeSource;
import io.locked.spi.Lease;
import io.locked.spi.PessimisticHold;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * What passes between two threads of one JVM when a holder hands its hold to the next waiter of the key
 * ({@link KeyTurns.Turn#reserveSuccessor}): what the waiter would take, and what it was given.
 */
public final class HandOvers {
    /**
     * How long one JVM may pass a key's lease from thread to thread before it lets other JVMs in. Another
     * JVM's optimistic waiter polls (at most every 50 ms of backoff) and never finds the row free while
     * leases are handed over, or only in the instant between a local release and the next local take; the
     * next local head then pauses for two of its longest pauses.
     */
    static final long LEASE_RUN_NANOS = TimeUnit.SECONDS.toNanos(1);
    /**
     * How long one JVM may pass a key's row lock from thread to thread, in one transaction, before a holder
     * ends the transaction, unless the manager was given another bound
     * ({@link io.locked.api.LockManagerBuilder#handOverRowsFor}). Other JVMs' pessimistic waiters queue in
     * the database for the whole run, and get the row when it ends, ahead of this JVM's next thread: no gap
     * is needed, but the run is their wait. Measured with runs of 0.5-1 s: another JVM asking every 20 ms
     * waited 0.8 s at the median and 1.7 s at most, where it waited 7 ms at the 99th percentile without
     * runs; a run of 10-20 ms still passes the row a hundred times at the rates measured (HandOverFairness).
     */
    static final long ROW_RUN_NANOS = io.locked.api.LockManagerBuilder.DEFAULT_ROW_HAND_OVER_RUN.toNanos();

    private HandOvers() {
    }

    /**
     * Whether the store passes row locks on, asked of it once, at the first use rather than when the manager
     * is built: a store that a CDI producer makes on first use must not be made, or fail, at the manager's
     * start. The key's turns and each pessimistic hold read the one answer.
     */
    static BooleanSupplier askedOnce(BooleanSupplier storeHandsOver) {
        return new BooleanSupplier() {
            private volatile Boolean answer;

            @Override
            public boolean getAsBoolean() {
                Boolean known = answer;
                if (known == null) {
                    known = storeHandsOver.getAsBoolean();
                    answer = known;
                }
                return known;
            }
        };
    }

    /**
     * A run's bound, drawn anew for each run from the upper half of its mode's: a fixed one fell in step with
     * waiters of as long a wait, which began polling anew at each gap, so that a third JVM went 10 to 80 s
     * without the key.
     *
     * @param most the longest run, positive: {@link #LEASE_RUN_NANOS} for leases, the manager's bound for rows
     */
    static long runBound(TimeSource time, long most) {
        return time.spread(most / 2, most + 1);
    }

    /**
     * What a waiting thread would take as a hold handed to it directly.
     *
     * @param owner  its acquisition id
     * @param holder its holder description
     * @param length the lease length it asked for; null for a pessimistic hold (a row lock and its transaction)
     */
    public record Wish(String owner, String holder, Duration length) {
        boolean optimistic() {
            return length != null;
        }
    }

    /** What the previous holder handed over with the turn. */
    public sealed interface Handed permits HandedLease, HandedRow {
    }

    /**
     * A lease handed over by the previous holder.
     *
     * @param lease       the receiver's lease
     * @param sentAtNanos when the hand-over was sent: the lease is counted from then
     */
    public record HandedLease(Lease lease, long sentAtNanos) implements Handed {
    }

    /**
     * A row lock handed over by the previous holder, with its transaction and connection.
     *
     * @param hold the receiver's hold, with its own token
     */
    public record HandedRow(PessimisticHold hold) implements Handed {
    }
}
