package io.locked.internal.exclusive;

import io.locked.api.LockHandle;
import io.locked.api.LockRequest;
import io.locked.internal.base.LockMeter;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRowState;
import java.time.Duration;
import java.util.List;

/**
 * The rows of one permit or read/write request ({@link RowAccess}): each row acquired as an exclusive lock of the
 * manager's ({@link ExclusiveLocks#acquire}), within the request's wait and under its meter.
 */
final class RequestRows implements RowAccess {
    private final ExclusiveLocks locks;
    private final LockRepository repository;
    private final LockRequest request;
    private final long started;
    private final ThreadScope scope;
    private final LockMeter meter;

    RequestRows(ExclusiveLocks locks, LockRepository repository, LockRequest request, long started, ThreadScope scope,
                LockMeter meter) {
        this.locks = locks;
        this.repository = repository;
        this.request = request;
        this.started = started;
        this.scope = scope;
        this.meter = meter;
    }

    @Override
    public LockHandle take(String rowKey, Duration rowWait) {
        return locks.acquire(request, rowKey, rowWait, started, scope, meter, false);
    }

    @Override
    public boolean closing() {
        return locks.closing();
    }

    @Override
    public LockRowState inspect(String rowKey) {
        return repository.inspect(rowKey).orElseGet(() -> new LockRowState(rowKey, null, null, null, null, null, null, null));
    }

    @Override
    public boolean createRow(String rowKey) {
        return repository.createRow(rowKey);
    }

    @Override
    public List<LockRowState> inspectAll(List<String> rowKeys) {
        return repository.inspectAll(rowKeys);
    }

    @Override
    public List<LockRowState> inspectLeases(List<String> rowKeys) {
        return repository.inspectLeases(rowKeys);
    }

    @Override
    public void joined(long token) {
        meter.acquired(locks.nanoTime() - started, token);
    }
}
