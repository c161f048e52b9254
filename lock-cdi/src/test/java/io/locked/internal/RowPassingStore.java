package io.locked.internal;

import io.locked.api.LockStoreUnavailableException;
import io.locked.contract.DelegatingRepository;
import io.locked.spi.Lease;
import io.locked.spi.PessimisticHold;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The in-memory store's holds, passed on by a wrapper that counts lock statements, hand-overs and releases; and the
 * threads that released its leases.
 */
final class RowPassingStore extends DelegatingRepository {
    final AtomicInteger lockStatements = new AtomicInteger();
    final AtomicInteger handOvers = new AtomicInteger();
    final AtomicInteger releases = new AtomicInteger();
    final List<Thread> leasesReleasedBy = new CopyOnWriteArrayList<>();
    volatile boolean failHandOvers;

    RowPassingStore() {
        super(new InMemoryLockRepository());
    }

    @Override
    public boolean handsOverPessimisticHolds() {
        return true;
    }

    @Override
    public boolean releaseLease(Lease lease) {
        leasesReleasedBy.add(Thread.currentThread());
        return super.releaseLease(lease);
    }

    @Override
    public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
        lockStatements.incrementAndGet();
        PessimisticHold hold = super.lockPessimistic(key, owner, holder, dbWait);
        return hold == null ? null : new Passed(hold, hold.token());
    }

    /** The same row lock under another token: what a hand-over leaves the next holder. */
    private final class Passed implements PessimisticHold {
        private final PessimisticHold row;
        private final long token;

        Passed(PessimisticHold row, long token) {
            this.row = row;
            this.token = token;
        }

        @Override
        public long token() {
            return token;
        }

        @Override
        public boolean isAlive(Duration timeout) {
            return row.isAlive(timeout);
        }

        @Override
        public PessimisticHold handOver(String owner, String holder) {
            if (failHandOvers) {
                throw new LockStoreUnavailableException("handed", "the hand-over's statement failed", null);
            }
            handOvers.incrementAndGet();
            return new Passed(row, token + 1);
        }

        @Override
        public boolean release() {
            releases.incrementAndGet();
            return row.release();
        }
    }
}
