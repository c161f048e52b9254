package io.locked.contract;

import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A real repository whose lease renewals can be cut off, as a holder that is paused (GC, SIGSTOP)
 * or partitioned from the database experiences it: renewals do not reach the database.
 */
public final class PausableRepository extends DelegatingRepository {
    private final AtomicBoolean renewalsCut = new AtomicBoolean();

    /** @param delegate the real repository */
    public PausableRepository(LockRepository delegate) {
        super(delegate);
    }

    /** From now on, renewals fail as if the database were unreachable. */
    public void cutRenewals() {
        renewalsCut.set(true);
    }

    @Override
    public Lease renewLease(Lease lease, Duration duration) {
        if (renewalsCut.get()) {
            throw new io.locked.api.LockStoreUnavailableException(lease.key(), "renewal cut off by the test", null);
        }
        return delegate.renewLease(lease, duration);
    }

}
