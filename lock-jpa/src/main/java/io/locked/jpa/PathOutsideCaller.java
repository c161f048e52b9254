package io.locked.jpa;

import io.locked.jpa.internal.transaction.CallerTransaction;
import io.locked.jpa.internal.transaction.HoldOutsideCaller;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRowState;
import io.locked.spi.PessimisticHold;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The storage calls of a {@link JpaLockRepository}, passed to the path that locks the rows, each run
 * outside the caller's transaction where there is one (a JTA transaction is set aside meanwhile):
 * lock work never joins the caller's.
 */
abstract class PathOutsideCaller implements LockRepository {
    /** The path that locks the rows. */
    final LockRepository path;
    /** How the caller's transaction is set aside. */
    final CallerTransaction caller;

    PathOutsideCaller(LockRepository path, CallerTransaction caller) {
        this.path = path;
        this.caller = caller;
    }

    @Override
    public void checkReachable(Duration timeout) {
        caller.outside(() -> path.checkReachable(timeout));
    }

    @Override
    public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
        PessimisticHold hold = caller.outside(() -> path.lockPessimistic(key, owner, holder, dbWait), PessimisticHold::release);
        return hold == null || caller == CallerTransaction.NONE ? hold : new HoldOutsideCaller(caller, hold);
    }

    @Override
    public boolean createRow(String key) {
        return caller.outside(() -> path.createRow(key));
    }

    @Override
    public boolean handsOverPessimisticHolds() {
        return path.handsOverPessimisticHolds();
    }

    @Override
    public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
        return caller.outside(() -> path.takeLease(key, owner, holder, lease, dbWait), path::releaseLease);
    }

    @Override
    public Lease renewLease(Lease lease, Duration duration) {
        return caller.outside(() -> path.renewLease(lease, duration));
    }

    @Override
    public int renewalBatchSize() {
        return path.renewalBatchSize();
    }

    @Override
    public List<Lease> renewLeases(List<Lease> leases, Duration duration) {
        return caller.outside(() -> path.renewLeases(leases, duration));
    }

    @Override
    public Lease handOverLease(Lease lease, String newOwner, String holder, Duration duration) {
        return caller.outside(() -> path.handOverLease(lease, newOwner, holder, duration), path::releaseLease);
    }

    @Override
    public boolean releaseLease(Lease lease) {
        return caller.outside(() -> path.releaseLease(lease));
    }

    @Override
    public boolean releaseLease(Lease lease, Duration holdAtLeast) {
        return caller.outside(() -> path.releaseLease(lease, holdAtLeast));
    }

    @Override
    public int deleteIdleRows(Duration idleFor) {
        return caller.outside(() -> path.deleteIdleRows(idleFor));
    }

    @Override
    public Optional<LockRowState> inspect(String key) {
        return caller.outside(() -> path.inspect(key));
    }

    @Override
    public List<LockRowState> list(String prefix, String afterKey, int limit) {
        return caller.outside(() -> path.list(prefix, afterKey, limit));
    }

    @Override
    public List<LockRowState> inspectAll(List<String> keys) {
        return caller.outside(() -> path.inspectAll(keys));
    }

    @Override
    public List<LockRowState> inspectLeases(List<String> keys) {
        return caller.outside(() -> path.inspectLeases(keys));
    }

    @Override
    public Optional<LockRowState> forceRelease(String key) {
        return caller.outside(() -> path.forceRelease(key));
    }

    @Override
    public Optional<LockRowState> forceRelease(String key, Duration lockDelay) {
        return caller.outside(() -> path.forceRelease(key, lockDelay));
    }
}
