package io.locked.contract;

import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.PessimisticHold;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A real repository whose lease renewals can be cut off, as a holder that is paused (GC, SIGSTOP)
 * or partitioned from the database experiences it: renewals do not reach the database.
 */
public final class PausableRepository implements LockRepository {
    private final LockRepository delegate;
    private final AtomicBoolean renewalsCut = new AtomicBoolean();

    /** @param delegate the real repository */
    public PausableRepository(LockRepository delegate) {
        this.delegate = delegate;
    }

    /** From now on, renewals fail as if the database were unreachable. */
    public void cutRenewals() {
        renewalsCut.set(true);
    }

    @Override
    public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
        return delegate.lockPessimistic(key, owner, holder, dbWait);
    }

    @Override
    public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
        return delegate.takeLease(key, owner, holder, lease, dbWait);
    }

    @Override
    public Lease renewLease(Lease lease, Duration duration) {
        if (renewalsCut.get()) {
            throw new io.locked.api.LockStoreUnavailableException(lease.key(), "renewal cut off by the test", null);
        }
        return delegate.renewLease(lease, duration);
    }

    @Override
    public Lease handOverLease(Lease lease, String newOwner, String holder, Duration duration) {
        return delegate.handOverLease(lease, newOwner, holder, duration);
    }

    @Override
    public boolean releaseLease(Lease lease) {
        return delegate.releaseLease(lease);
    }

    @Override
    public int deleteIdleRows(Duration idleFor) {
        return delegate.deleteIdleRows(idleFor);
    }
}
