package io.locked.internal.exclusive;

import io.locked.spi.Lease;
import io.locked.spi.PessimisticHold;
import java.time.Duration;

/**
 * What passes between two threads of one JVM when a holder hands its hold to the next waiter of the key
 * ({@link KeyTurns.Turn#reserveSuccessor}): what the waiter would take, and what it was given.
 */
public final class HandOvers {
    private HandOvers() {
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
