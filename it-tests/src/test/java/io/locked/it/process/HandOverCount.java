package io.locked.it.process;

import io.locked.contract.DelegatingRepository;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.PessimisticHold;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A worker's store that counts the row locks its holds pass on ({@link PessimisticHold#handOver}) and the leases
 * its manager passes on ({@link LockRepository#handOverLease}: to a waiting thread, or from a kept lease to the
 * next take), and prints {@code HANDED-OVER n} at every hundredth: the crash tests kill the worker only once runs
 * of hand-overs have formed, not merely once its threads have cycled.
 */
final class HandOverCount extends DelegatingRepository {
    static final String LINE = "HANDED-OVER ";
    private final AtomicLong handedOver = new AtomicLong();

    HandOverCount(LockRepository delegate) {
        super(delegate);
    }

    @Override
    public Lease handOverLease(Lease lease, String newOwner, String holder, Duration duration) {
        Lease passed = super.handOverLease(lease, newOwner, holder, duration);
        if (passed != null) {
            counted();
        }
        return passed;
    }

    private void counted() {
        long count = handedOver.incrementAndGet();
        if (count % 100 == 0) {
            System.out.println(LINE + count);
        }
    }

    @Override
    public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
        PessimisticHold hold = super.lockPessimistic(key, owner, holder, dbWait);
        return hold == null ? null : new Counted(hold);
    }

    /** The store's hold, whose hand-overs are counted. */
    private final class Counted implements PessimisticHold {
        private final PessimisticHold hold;

        Counted(PessimisticHold hold) {
            this.hold = hold;
        }

        @Override
        public long token() {
            return hold.token();
        }

        @Override
        public boolean isAlive(Duration timeout) {
            return hold.isAlive(timeout);
        }

        @Override
        public AnotherRow lockAnotherRow(String key, boolean shared) {
            return hold.lockAnotherRow(key, shared);
        }

        @Override
        public PessimisticHold handOver(String owner, String holder) {
            PessimisticHold next = hold.handOver(owner, holder);
            if (next == null) {
                return null;
            }
            counted();
            return new Counted(next);
        }

        @Override
        public boolean release() {
            return hold.release();
        }

        @Override
        public boolean release(Duration holdAtLeast) {
            return hold.release(holdAtLeast);
        }
    }
}
