package io.locked.internal;

import io.locked.api.LockInfo;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRowState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The operators' side of {@link LockManager}: who holds what, read from the table, and forced
 * release, for every kind of row (a key's exclusive lock, its permits, its read/write lock's rows).
 */
final class Operators {
    private final LockRepository repository;

    Operators(LockRepository repository) {
        this.repository = repository;
    }

    LockInfo inspect(String key) {
        String checked = RowKeys.checked(key);
        return repository.inspect(checked).map(Operators::info)
                .orElseGet(() -> new LockInfo(checked, null, null, null, null, null, null, false));
    }

    List<LockInfo> list(String prefix, String afterKey, int limit) {
        if (prefix == null) {
            throw new IllegalArgumentException("Key prefix must not be null; use \"\" for every key");
        }
        if (limit < 1 || limit > LockManager.MAX_PAGE) {
            throw new IllegalArgumentException("Page limit must be 1 to " + LockManager.MAX_PAGE + ", was " + limit);
        }
        return repository.list(prefix, afterKey, limit).stream().map(Operators::info).toList();
    }

    /** The rows of the named keys that have one; for the lock manager's own use. */
    List<LockInfo> inspectAll(List<String> keys) {
        return repository.inspectAll(keys).stream().map(Operators::info).toList();
    }

    /** As {@link #inspectAll}, where only live leases count as held; for the lock manager's own use. */
    List<LockInfo> inspectLeases(List<String> keys) {
        return repository.inspectLeases(keys).stream().map(Operators::info).toList();
    }

    Optional<LockInfo> forceRelease(String key, Duration lockDelay) {
        String checked = RowKeys.checked(key);
        if (RowKeys.isSharedRow(checked)) {
            throw new IllegalArgumentException("'" + checked.replace(LockRequest.PERMIT_SLOT_MARK, '#') + "' is the row that"
                    + " a read/write lock's pessimistic readers share, and has no holder of its own: force-release the"
                    + " reader slots that holders() lists, or all of them with forceReleaseAll");
        }
        // the request checks the delay as a lock-delay
        LockRequest.of(RowKeys.baseKey(checked)).mode(LockMode.OPTIMISTIC).lockDelay(lockDelay);
        Optional<LockInfo> ended = repository.forceRelease(checked, lockDelay).map(Operators::info);
        ended.ifPresent(hold -> LockLog.forcedRelease(checked, hold.mode(), hold.token(), hold.holder(),
                hold.databaseSession()));
        return ended;
    }

    List<LockInfo> holders(String key) {
        String checked = LockRequest.of(key).key();
        // one look at every row a holder of the key can hold, each named: found through the key's index
        return inspectAll(RowKeys.holderRowKeys(checked)).stream()
                .filter(LockInfo::held)
                .sorted(Comparator.comparingInt(row -> RowKeys.order(row.key())))
                .toList();
    }

    List<LockInfo> forceReleaseAll(String key) {
        List<LockInfo> ended = new ArrayList<>();
        for (LockInfo holder : holders(key)) {
            forceRelease(holder.key(), Duration.ZERO).ifPresent(ended::add);
        }
        return ended;
    }

    private static LockInfo info(LockRowState row) {
        return new LockInfo(row.key(), row.mode(), row.holder(), row.token(), row.since(), row.until(),
                row.databaseSession(), row.held() && Holder.isThisJvm(row.holder()));
    }
}
