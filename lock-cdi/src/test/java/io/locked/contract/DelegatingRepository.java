package io.locked.contract;

import io.locked.api.LockMode;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRowState;
import io.locked.spi.PessimisticHold;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A repository that passes every call to a real one: test wrappers override only what they disturb. The batch
 * renewal ({@code renewLeases}) and the refusal of a mode and type keep the interface's defaults on purpose:
 * they go through {@code renewLease} and {@code refusal(mode)}, so a wrapper that disturbs those disturbs them too.
 */
public abstract class DelegatingRepository implements LockRepository {
    /** The store that does the work. */
    protected final LockRepository delegate;

    /** @param delegate the store that does the work */
    protected DelegatingRepository(LockRepository delegate) {
        this.delegate = delegate;
    }

    @Override
    public void checkReachable(Duration timeout) {
        delegate.checkReachable(timeout);
    }

    @Override
    public Optional<String> refusal(LockMode mode) {
        return delegate.refusal(mode);
    }

    @Override
    public Optional<String> noSharedRowLocks() {
        return delegate.noSharedRowLocks();
    }

    @Override
    public boolean createRow(String key) {
        return delegate.createRow(key);
    }

    @Override
    public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
        return delegate.lockPessimistic(key, owner, holder, dbWait);
    }

    @Override
    public boolean handsOverPessimisticHolds() {
        return delegate.handsOverPessimisticHolds();
    }

    @Override
    public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
        return delegate.takeLease(key, owner, holder, lease, dbWait);
    }

    @Override
    public Lease renewLease(Lease lease, Duration duration) {
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
    public boolean releaseLease(Lease lease, Duration holdAtLeast) {
        return delegate.releaseLease(lease, holdAtLeast);
    }

    @Override
    public int deleteIdleRows(Duration idleFor) {
        return delegate.deleteIdleRows(idleFor);
    }

    @Override
    public Optional<LockRowState> inspect(String key) {
        return delegate.inspect(key);
    }

    @Override
    public List<LockRowState> list(String prefix, String afterKey, int limit) {
        return delegate.list(prefix, afterKey, limit);
    }

    @Override
    public List<LockRowState> inspectAll(List<String> keys) {
        return delegate.inspectAll(keys);
    }

    @Override
    public List<LockRowState> inspectLeases(List<String> keys) {
        return delegate.inspectLeases(keys);
    }

    @Override
    public Optional<LockRowState> forceRelease(String key) {
        return delegate.forceRelease(key);
    }

    @Override
    public Optional<LockRowState> forceRelease(String key, Duration lockDelay) {
        return delegate.forceRelease(key, lockDelay);
    }
}
