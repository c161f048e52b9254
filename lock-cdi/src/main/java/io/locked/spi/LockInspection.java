package io.locked.spi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The operators' side of a store ({@link LockRepository} extends it): the rows read as they are, and a
 * hold ended by force. Each call is an optional capability: its default throws
 * {@link UnsupportedOperationException}, and the lock manager refuses the operator's call that needs
 * it with the store's reason. A store that implements one implements what the contract suite's
 * inspection tests check of it.
 */
public interface LockInspection {

    /**
     * Reads one key's row for an operator: whether it is held, in which mode, by whom, as seen from
     * any JVM (a pessimistic holder's uncommitted row change included, where the database can show
     * it). A snapshot, bounded by a short fixed time.
     *
     * @param key the lock key
     * @return the row's state, empty when the key has no row (it is free)
     * @throws io.locked.api.LockStoreUnavailableException if the store cannot be read
     * @throws UnsupportedOperationException if this store cannot be inspected
     */
    default Optional<LockRowState> inspect(String key) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot be inspected");
    }

    /**
     * Reads a page of rows whose keys start with {@code prefix}, in key order, as {@link #inspect}.
     *
     * @param prefix   what the keys start with, not null; empty for every key
     * @param afterKey the last key of the previous page (exclusive), or null for the first page
     * @param limit    the most rows to return, 1 to 1000
     * @return up to {@code limit} rows, in key order; fewer means the last page
     * @throws io.locked.api.LockStoreUnavailableException if the store cannot be read
     * @throws UnsupportedOperationException if this store cannot be inspected
     */
    default List<LockRowState> list(String prefix, String afterKey, int limit) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot be inspected");
    }

    /**
     * Reads the rows of the named keys, each as {@link #inspect} reads one, in one look where the store
     * can: a read/write lock's writer looks at every reader slot of its key this way. Naming the keys,
     * rather than a prefix, lets the store find each row through the key's unique index whatever the
     * column's collation (PostgreSQL cannot use its index for {@code LIKE 'prefix%'} under a collation
     * other than {@code C}, and would read the whole table). The default inspects one key after another.
     *
     * @param keys the keys, not null, 1 to 1000, without duplicates
     * @return the rows of the keys that have one, in key order
     * @throws io.locked.api.LockStoreUnavailableException if the store cannot be read
     * @throws UnsupportedOperationException if this store cannot be inspected
     */
    default List<LockRowState> inspectAll(List<String> keys) {
        List<LockRowState> rows = new ArrayList<>(keys.size());
        for (String key : new TreeSet<>(keys)) {
            inspect(key).ifPresent(rows::add);
        }
        return rows;
    }

    /**
     * Reads the rows of the named keys as {@link #inspectAll} does, but where only a live lease counts as
     * held: a row that a pessimistic hold locks shows as its last committed state. That spares the
     * statements which look for row locks and for uncommitted row changes. For a caller to which no
     * pessimistic hold of those rows can matter: a pessimistic writer of a read/write lock holds the key's
     * shared row alone, so no pessimistic reader is inside, and only the optimistic ones are left to wait
     * for. The default reads them as {@link #inspectAll} does.
     *
     * @param keys the keys, not null, 1 to 1000, without duplicates
     * @return the rows of the keys that have one, in key order, committed
     * @throws io.locked.api.LockStoreUnavailableException if the store cannot be read
     * @throws UnsupportedOperationException if this store cannot be inspected
     */
    default List<LockRowState> inspectLeases(List<String> keys) {
        return inspectAll(keys);
    }

    /**
     * Ends the key's current hold, for an operator: an optimistic lease is freed; a pessimistic
     * holder's database session is ended, where the database allows it, which frees its row lock, and
     * only while the hold read is still open (never the session's later work, after a release).
     * Either way the row's token is raised as a new acquisition would raise it, and so is the key's
     * fence row where the fence table exists: the old holder's renewals, release and fenced writes
     * fail, and the next holder's token is higher.
     *
     * @param key the lock key
     * @return the hold that was ended, empty if the key was free or the hold read ended by itself first
     * @throws io.locked.api.LockStoreUnavailableException if the store failed, or refused to end the
     *                                                     holder's session (the message names the privilege)
     * @throws IllegalStateException if the holder's session cannot be told or ended on this store
     * @throws UnsupportedOperationException if this store has no forced release
     */
    default Optional<LockRowState> forceRelease(String key) {
        throw new UnsupportedOperationException(getClass().getName() + " has no forced release");
    }

    /**
     * Ends the key's current hold as {@link #forceRelease(String)} does, and then keeps the key taken
     * for {@code lockDelay} on the database's clock (a lease in no acquisition's name), so that the
     * old holder, which may still be at work, has time to notice its loss before a new holder starts.
     * Where the ended pessimistic hold's key was taken by a new holder at once, there is no delay to keep.
     *
     * @param key       the lock key
     * @param lockDelay how long the key stays taken after the end, zero or positive
     * @return as {@link #forceRelease(String)}
     * @throws UnsupportedOperationException if this store has no forced release, or none with a delay
     */
    default Optional<LockRowState> forceRelease(String key, Duration lockDelay) {
        if (lockDelay.isZero()) {
            return forceRelease(key);
        }
        throw new UnsupportedOperationException(getClass().getName() + " has no forced release with a lock-delay");
    }
}
