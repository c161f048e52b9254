package io.locked.internal.exclusive;

import io.locked.api.LockHandle;
import io.locked.spi.LockRowState;
import java.time.Duration;
import java.util.List;

/**
 * What permits ({@code PermitSlots}) and read/write locks ({@code ReadWriteSlots}) need of the lock
 * manager: one row taken as an exclusive lock, and the table read, within one request.
 */
public interface RowAccess {
    /** @return the row's lock, waiting up to {@code wait} for it (zero: one try), or null */
    LockHandle take(String rowKey, Duration wait);

    /** @return the row as the table has it; one the table does not have shows free, with no token */
    LockRowState inspect(String rowKey);

    /**
     * Makes sure the row exists, holding nothing ({@link io.locked.spi.LockRepository#createRow}).
     *
     * @return false when another transaction kept its place busy
     */
    boolean createRow(String rowKey);

    /** @return the rows of the named keys that have one ({@link io.locked.spi.LockRepository#inspectAll}) */
    List<LockRowState> inspectAll(List<String> rowKeys);

    /** @return the rows as {@link #inspectAll} reads them, where only a live lease counts as held ({@link io.locked.spi.LockRepository#inspectLeases}) */
    List<LockRowState> inspectLeases(List<String> rowKeys);

    /**
     * The request got a hold on a row another request took (a reader joined its JVM's group).
     *
     * @param token the fencing token of that row's hold
     */
    void joined(long token);

    /**
     * @return whether the manager began to close: a read/write lock whose rows it took before, and whose look at
     *         the other side's rows came after, is not granted (the drain lets holders finish, it grants nothing new)
     */
    default boolean closing() {
        return false;
    }

    /** @return a nested hold of the row when this thread is inside its scope, else null */
    default LockHandle reenter(ThreadScope scope, String rowKey) {
        return scope.find(rowKey) == null ? null : take(rowKey, Duration.ZERO);
    }
}
