package io.locked.internal.readwrite;

import io.locked.internal.base.Backoff;
import io.locked.internal.base.RowKeys;
import io.locked.api.LockHandle;
import io.locked.api.LockManagerClosedException;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.internal.base.TimeSource;
import io.locked.internal.exclusive.AcquisitionView;
import io.locked.internal.exclusive.RowAccess;
import io.locked.internal.exclusive.ThreadScope;
import io.locked.spi.LockRowState;
import io.locked.spi.LockRows;
import io.locked.spi.PessimisticHold;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import static io.locked.internal.readwrite.ReadWriteSlots.closeAfterFailure;
import static io.locked.internal.readwrite.ReadWriteSlots.giveBack;
import static io.locked.internal.readwrite.ReadWriteSlots.lockAnotherRow;
import static io.locked.internal.readwrite.ReadWriteSlots.pause;
import static io.locked.internal.readwrite.ReadWriteSlots.readHolding;

/**
 * The writers' side of {@link ReadWriteSlots}: a writer takes the writer row, then waits for the readers
 * inside, those of other JVMs in the table and those of its own JVM here.
 */
final class WriteSide {
    private final TimeSource time;
    private final LocalReadWrite local;

    WriteSide(TimeSource time, LocalReadWrite local) {
        this.time = time;
        this.local = local;
    }

    /**
     * @return the write, or null when the writer row or the readers' leaving did not come within the wait
     * @throws IllegalStateException when this thread reads the key: its write would wait for itself
     */
    LockHandle write(LockRequest request, ThreadScope scope, long deadline, RowAccess rows) {
        String writer = LockRows.writer(request.key());
        LockHandle nested = rows.reenter(scope, writer);
        if (nested != null) {
            return nested;
        }
        KeyState state = local.enter(request.key());
        try {
            ReaderGroup unwanted;
            synchronized (state) {
                if (state.readBy(Thread.currentThread()) != null) {
                    throw new IllegalStateException("Cannot write '" + request.key() + "' while this thread reads it:"
                            + " the write would wait for this thread's own read forever. Release the read first, or"
                            + " take the write first (a read inside a write is allowed)");
                }
                unwanted = state.writerComes();
            }
            boolean writing = false;
            LockHandle write = null;
            try {
                local.release(state, unwanted);
                write = takeTheRows(request, deadline, rows, state);
                if (write == null) {
                    return null;
                }
                synchronized (state) {
                    state.writerHoldsTheRow();
                }
                if (!awaitNoReader(request, deadline, rows, write, state)) {
                    return null;
                }
                if (rows.closing()) {
                    giveBack(write); // the close began while the readers left: the drain grants nothing new
                    throw new LockManagerClosedException("This LockManager was closed while '" + request.key()
                            + "' was being acquired");
                }
                long token = write.token();
                ((AcquisitionView) write).acquisition.thenFinished(() -> writerLeft(state, true, token));
                writing = true;
                return write;
            } finally {
                if (!writing) {
                    writerLeft(state, write != null, -1);
                }
            }
        } finally {
            local.released(state);
        }
    }

    private void writerLeft(KeyState state, boolean heldTheRow, long token) {
        if (!local.releaseIfUnwanted(state, left -> left.writerLeft(heldTheRow, token))) {
            local.ended(state); // woken by the write's end already: this forgets the state if nothing uses it
        }
    }

    /**
     * Takes the writer row, and for a {@code PESSIMISTIC} write then the key's shared row exclusively, in
     * the writer row's transaction: no pessimistic reader group, of any JVM, shares that row then, and none
     * can until the write ends. A group that shares it after the writer took its row reads the writer row
     * next, finds it held and gives both back. A missing shared row is created, outside the transaction,
     * and the rows are taken again: on MariaDB and MySQL the look at the missing row keeps its place from
     * inserts until the transaction ends, and the readers must be able to create it.
     *
     * @return the write, or null, nothing held, when the rows did not come within the wait
     */
    private LockHandle takeTheRows(LockRequest request, long deadline, RowAccess rows, KeyState state) {
        String shared = LockRows.shared(request.key());
        Backoff backoff = Backoff.standard();
        while (true) {
            LockHandle write = rows.take(LockRows.writer(request.key()),
                    Duration.ofNanos(Math.max(0, deadline - time.nanoTime())));
            if (write == null || request.mode() != LockMode.PESSIMISTIC) {
                return write;
            }
            PessimisticHold.AnotherRow found;
            while (true) {
                long seen;
                synchronized (state) {
                    seen = state.changes();
                }
                found = readHolding(() -> lockAnotherRow(write, shared, false), write);
                if (found != PessimisticHold.AnotherRow.BUSY) {
                    break;
                }
                if (!pauseHolding(state, seen, deadline, backoff, write)) {
                    return null;
                }
            }
            if (found == PessimisticHold.AnotherRow.LOCKED) {
                return write;
            }
            giveBack(write);
            if (!rows.createRow(shared) && deadline - time.nanoTime() <= 0) {
                return null; // another transaction kept the missing row's place all the wait
            }
        }
    }

    /**
     * Pauses as {@link ReadWriteSlots#pause} while the writer row is held, which is released if the wait ran
     * out or the thread was interrupted.
     *
     * @return false, the write released, when the wait ran out
     */
    private boolean pauseHolding(KeyState state, long seen, long deadline, Backoff backoff,
                                 LockHandle write) {
        boolean waited;
        try {
            waited = pause(state, seen, deadline, backoff, time);
        } catch (RuntimeException interrupted) {
            closeAfterFailure(write, interrupted);
            throw interrupted;
        }
        if (!waited) {
            giveBack(write);
        }
        return waited;
    }

    /**
     * Waits for the readers inside, once the writer row is held. Only the slots the first look found held
     * are waited for: a reader that takes a slot after that look reads the writer row after its take, finds
     * it held and gives the slot back without entering. So is a slot seen free by a later look. A slot of
     * this JVM's group that still has readers needs no look: the writer waits here until they left, and
     * passes the group's slot once it is parked and still the group's.
     *
     * @return true once no reader is inside; false, the write released, when the wait ran out first
     */
    private boolean awaitNoReader(LockRequest request, long deadline, RowAccess rows, LockHandle write,
                                  KeyState state) {
        Backoff backoff = Backoff.standard();
        List<String> readers = RowKeys.readerSlotKeys(request.key());
        Map<String, LockRowState> waitedFor = null;
        boolean look = true;
        while (true) {
            long seen;
            LocalReadWrite.OwnSlots ownBeforeTheLook;
            synchronized (state) {
                seen = state.changes();
                // a group's release may end between the look and the snapshot after it: the look saw its row
                // held, the snapshot no longer names it; nobody joins it meanwhile, so its row seen with its
                // token at the look was an empty group's of this JVM, not a reader's
                ownBeforeTheLook = state.ownSlots();
            }
            if (look) {
                Map<String, LockRowState> held = new HashMap<>();
                for (LockRowState slot : readHolding(() -> lookAtTheSlots(request, rows, readers), write)) {
                    if (slot.held() && (waitedFor == null || waitedFor.containsKey(slot.key()))) {
                        held.put(slot.key(), slot);
                    }
                }
                waitedFor = held;
            }
            LocalReadWrite.OwnSlots own;
            synchronized (state) {
                // nobody joins a group of this JVM while this writer is here: an empty one's slot does not count
                own = state.ownSlots();
            }
            waitedFor.entrySet().removeIf(slot -> stillOurs(slot.getValue(), own.withoutReaders().get(slot.getKey()))
                    || stillOurs(slot.getValue(), ownBeforeTheLook.withoutReaders().get(slot.getKey())));
            if (waitedFor.isEmpty()) {
                return true;
            }
            look = !own.withReaders().containsAll(waitedFor.keySet());
            if (!pauseHolding(state, seen, deadline, backoff, write)) {
                return false;
            }
        }
    }

    /**
     * Reads the reader slots. A {@code PESSIMISTIC} writer holds the key's shared row alone
     * ({@link #takeTheRows}), and every pessimistic reader inside shares it from before its look at the
     * writer row until it leaves, so none is inside and none can enter: only the optimistic readers' leases
     * are left to wait for, and a plain read of the committed rows shows them. That spares the statements
     * which look for row locks and uncommitted rows (on MariaDB and MySQL an isolation change and a probe
     * of the rows' locks, on PostgreSQL the sessions behind them, on the JPA path a try of each row's lock).
     * An optimistic reader's take is committed before its look at the writer row: a take this read misses
     * sees the writer row held and gives its slot back. The look names every slot's key rather than their
     * common prefix, so that each row is found through the key's index, whatever the table's size and the
     * column's collation.
     */
    private static List<LockRowState> lookAtTheSlots(LockRequest request, RowAccess rows, List<String> readers) {
        return request.mode() == LockMode.PESSIMISTIC ? rows.inspectLeases(readers) : rows.inspectAll(readers);
    }

    /**
     * @return whether the held slot row is still the given empty group's of this JVM: false for null. Only
     *         an {@code OPTIMISTIC} group is kept empty for its JVM's writer ({@link LocalReadWrite}). The
     *         group may have lost the row to an operator's forced release, and another JVM's reader may
     *         have taken it and entered since, while the group has not learnt of the loss yet: the row then
     *         shows another token than the group's lease.
     */
    private static boolean stillOurs(LockRowState slot, ReaderGroup empty) {
        return empty != null && slot.mode() == LockMode.OPTIMISTIC && empty.slot.mode() == LockMode.OPTIMISTIC
                && slot.token() != null && slot.token() == empty.slot.token(); // the slot handle shows its row's token
    }
}
