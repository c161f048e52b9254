package io.locked.internal.readwrite;

import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockRequest;
import io.locked.api.LockStoreUnavailableException;
import io.locked.internal.base.Backoff;
import io.locked.internal.base.KeepTimer;
import io.locked.internal.base.SeededBug;
import io.locked.internal.base.TimeSource;
import io.locked.internal.exclusive.AcquisitionView;
import io.locked.internal.exclusive.RowAccess;
import io.locked.internal.exclusive.ThreadScope;
import io.locked.spi.PessimisticHold;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * A key's read/write lock, built of exclusive locks the stores already keep: the writer holds the
 * key's writer row, each reader one of {@link LockRequest#MAX_READERS} reader slots. A reader takes a
 * slot first, then reads the writer row; a writer takes the writer row first, then reads the slots.
 * Each looks at the other's row only after its own take is in the database, so of a reader and a
 * writer that arrive together at least one sees the other: the reader gives its slot back and waits,
 * or the writer waits for the slot to be freed. A writer holds its row while it waits for the readers
 * to leave, and readers that see a writer row held do not enter, so a stream of readers cannot starve
 * a writer.
 *
 * <p>{@code PESSIMISTIC} adds the database's shared row lock: a reader slot's transaction also locks the
 * key's shared row ({@link io.locked.spi.LockRows#shared}) shared, before it reads the writer row, and a writer,
 * holding the writer row, locks it exclusively before it reads the slots. So the database itself keeps
 * a pessimistic writer out while any JVM's pessimistic reader is in. Neither waits in the database's
 * queue for it (PostgreSQL lets a new shared lock pass a waiting exclusive one): the writer row, seen
 * by the readers' look, is what keeps new readers out. The slots stay, for optimistic readers, for
 * inspection and forced release of each holder, and for readers of other versions.
 *
 * <p>The readers of one JVM share a slot ({@link ReaderGroup}): one takes it, the others join it
 * without a statement while no writer waits. Readers and writers of one JVM wait for each other in
 * {@link LocalReadWrite}, woken by each other's release; only a wait for another JVM polls the table.
 * {@link ReadSide} and {@link WriteSide} hold each side's part.
 *
 * <p>Tokens: a writer's is its row's, so each writer's is above the one before. A reader's is the
 * writer row's committed token when its group's slot was taken (or the token of a writer of this JVM
 * that wrote while the group was parked): never above the last writer's, and below every later writer's,
 * which each draws above the row's token. It is not always the last writer's: with clock tokens a writer's
 * token is rolled back, leaving the row's last committed one, and a cleanup of the idle writer row leaves
 * 0. So a reader's token orders it before the writes after it, and fenced writes belong to writers.
 */
public final class ReadWriteSlots {
    private final ReadSide readers;
    private final WriteSide writers;

    private final LocalReadWrite local;

    /** @param seededBug a bug a negative control seeds in the JVM's readers and writers, or null (any other part's is ignored) */
    public ReadWriteSlots(TimeSource time, KeepTimer timer, SeededBug seededBug) {
        this.local = new LocalReadWrite(time, timer, seededBug instanceof ReadWriteSeededBug mine ? mine : null);
        this.readers = new ReadSide(time, local);
        this.writers = new WriteSide(time, local);
    }

    /** How long a JVM's emptied optimistic reader slot stays held for its next reader or writer. */
    public void keepReaderSlotsFor(Duration keep) {
        local.keepFor(keep);
    }

    /** The lock manager closes: groups kept for this JVM's next reader or writer are released. */
    public void close() {
        local.close();
    }

    /** @return whether this thread reads the key in a group of this JVM, with a hold it has not closed nor handed over */
    /** @return how many keys' read/write locks this JVM keeps state for: held, waited for, or a reader slot kept */
    public int keysInUse() {
        return local.keysInUse();
    }

    public boolean readsNow(String key) {
        return local.readsNow(key);
    }

    /**
     * @return the read, or null when none came within the wait; under this thread's write of the key,
     *         a nested hold of that write (a downgrade)
     */
    public LockHandle read(LockRequest request, ThreadScope scope, long deadline, RowAccess rows) {
        return readers.read(request, scope, deadline, rows);
    }

    /**
     * @return the write, or null when the writer row or the readers' leaving did not come within the wait
     * @throws IllegalStateException when this thread reads the key: its write would wait for itself
     */
    public LockHandle write(LockRequest request, ThreadScope scope, long deadline, RowAccess rows) {
        return writers.write(request, scope, deadline, rows);
    }

    /** Waits for the next pause of the backoff, or until this JVM's readers or writers of the key change. */
    static boolean pause(KeyState state, long seen, long deadline, Backoff backoff, TimeSource time) {
        long remaining = deadline - time.nanoTime();
        return remaining > 0 && pause(state, seen, deadline, backoff.nextPauseNanos(remaining, time));
    }

    static boolean pause(KeyState state, long seen, long deadline, long nanos) {
        synchronized (state) {
            return state.await(seen, deadline, nanos);
        }
    }

    /**
     * Reads the table while holding a row (or none), which is released if the read fails: a failed read must
     * not leave a reader slot or the writer row held. A read that failed as "store unavailable" is
     * tried once more first: H2 now and then fails a read that meets a row another transaction changes.
     */
    static <T> T readHolding(Supplier<T> read, LockHandle held) {
        try {
            try {
                return read.get();
            } catch (LockStoreUnavailableException once) {
                return read.get();
            }
        } catch (RuntimeException | Error failed) {
            closeAfterFailure(held, failed);
            throw failed;
        }
    }

    /**
     * Locks one more row in a pessimistic hold's transaction, without waiting: the key's shared row,
     * which its pessimistic reader groups lock shared and its pessimistic writer exclusively.
     */
    static PessimisticHold.AnotherRow lockAnotherRow(LockHandle held, String rowKey, boolean shared) {
        return ((AcquisitionView) held).acquisition.lockAnotherRow(rowKey, shared);
    }

    /**
     * Gives back a row taken for a request and never handed out to its caller: the other side was seen, or
     * the wait ran out. A loss found on the way is nobody's to hear of (the caller gets "not acquired"),
     * and was logged by the row's hold; a store failure goes to the caller.
     */
    static void giveBack(LockHandle neverHandedOut) {
        try {
            neverHandedOut.close();
        } catch (LockLostException notTheCallers) {
            // the row's lease ran out before it was given back: the caller never held it
        }
    }

    static void closeAfterFailure(LockHandle held, Throwable failure) {
        if (held == null) {
            return;
        }
        try {
            held.close();
        } catch (RuntimeException | Error releaseFailed) {
            failure.addSuppressed(releaseFailed);
        }
    }
}
