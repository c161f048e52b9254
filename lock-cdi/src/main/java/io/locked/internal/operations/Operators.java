package io.locked.internal.operations;

import io.locked.internal.base.LockLog;
import io.locked.internal.base.RowKeys;
import io.locked.api.LockInfo;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRowState;
import io.locked.spi.LockRows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The operators' side of {@link LockManager}: who holds what, read from the table, and forced
 * release, for every holder of a key (its exclusive lock, its permits, its read/write lock's writer
 * and reader slots), each told by its key, kind and slot ({@link RowKeys}).
 */
public final class Operators {
    /** The most holders one {@link #list} page returns. */
    static final int MAX_PAGE = 1000;
    private final LockRepository repository;

    public Operators(LockRepository repository) {
        this.repository = repository;
    }

    public LockInfo inspect(String key) {
        String checked = LockRequest.of(key).key();
        return asked("be inspected", () -> repository.inspect(checked)).map(RowInfo::of).orElseGet(() -> RowInfo.free(checked));
    }

    public List<LockInfo> list(String prefix, LockInfo after, int limit) {
        if (prefix == null) {
            throw new IllegalArgumentException("Key prefix must not be null; use \"\" for every key");
        }
        if (limit < 1 || limit > MAX_PAGE) {
            throw new IllegalArgumentException("Page limit must be 1 to " + MAX_PAGE + ", was " + limit);
        }
        String afterRow = after == null ? null : rowOf(after);
        List<LockInfo> page = new ArrayList<>(limit);
        // the shared rows of read/write locks are no holder's: read on until the page is full or the table ends
        while (true) {
            int wanted = limit - page.size();
            String from = afterRow;
            List<LockRowState> rows = asked("be inspected", () -> repository.list(prefix, from, wanted));
            rows.stream().map(RowInfo::of).filter(Objects::nonNull).forEach(page::add);
            if (rows.size() < wanted || page.size() == limit) {
                return page;
            }
            afterRow = rows.get(rows.size() - 1).key();
        }
    }

    public Optional<LockInfo> forceRelease(String key, Duration lockDelay) {
        return forceReleaseRow(LockRequest.of(key).key(), lockDelay);
    }

    public Optional<LockInfo> forceRelease(LockInfo holder, Duration lockDelay) {
        return forceReleaseRow(rowOf(holder), lockDelay);
    }

    private Optional<LockInfo> forceReleaseRow(String row, Duration lockDelay) {
        // the request checks the delay as a lock-delay
        LockRequest.of(RowKeys.place(row).key()).mode(LockMode.OPTIMISTIC).lockDelay(lockDelay);
        Optional<LockInfo> ended = asked(lockDelay.isZero() ? "end a hold" : "end a hold with a lock-delay",
                () -> repository.forceRelease(row, lockDelay)).map(RowInfo::of);
        ended.ifPresent(hold -> LockLog.forcedRelease(RowInfo.describe(hold), hold.mode().orElse(null),
                hold.token().isPresent() ? hold.token().getAsLong() : null, hold.holder().orElse(null),
                hold.databaseSession().orElse(null)));
        return ended;
    }

    public List<LockInfo> holders(String key) {
        String checked = LockRequest.of(key).key();
        // one look at every row a holder of the key can hold, each named: found through the key's index
        return asked("be inspected", () -> repository.inspectAll(RowKeys.holderRowKeys(checked))).stream()
                .filter(LockRowState::held)
                .map(RowInfo::of)
                .filter(Objects::nonNull)
                .sorted(Comparator.comparing(LockInfo::kind).thenComparingInt(LockInfo::slot))
                .map(LockInfo.class::cast)
                .toList();
    }

    public List<LockInfo> forceReleaseAll(String key) {
        List<LockInfo> ended = new ArrayList<>();
        for (LockInfo holder : holders(key)) {
            forceRelease(holder, Duration.ZERO).ifPresent(ended::add);
        }
        return ended;
    }

    /**
     * A store of the SPI may lack the operators' calls (its defaults throw {@link UnsupportedOperationException}):
     * the API refuses the call with the store's reason instead.
     */
    private static <T> T asked(String what, Supplier<T> call) {
        try {
            return call.get();
        } catch (UnsupportedOperationException missing) {
            throw new IllegalStateException("This lock store cannot " + what + ": " + missing.getMessage(), missing);
        }
    }

    /** @return the row of the holder an operator names, checked as a request would check its key */
    private static String rowOf(LockInfo holder) {
        if (holder == null || holder.kind() == null) {
            throw new IllegalArgumentException("Holder must not be null, nor of no kind: pass what inspect, holders"
                    + " or list returned, was " + holder);
        }
        LockRequest checked = LockRequest.of(holder.key());
        return LockRows.of(checked.key(), holder.kind(), holder.slot());
    }
}
