package io.locked.internal.readwrite;

import io.locked.internal.base.RowKeys;
import io.locked.api.LockHandle;
import io.locked.api.LockManagerClosedException;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.internal.base.Backoff;
import io.locked.internal.base.TimeSource;
import io.locked.internal.exclusive.RowAccess;
import io.locked.internal.exclusive.ThreadScope;
import io.locked.spi.LockRowState;
import io.locked.spi.LockRows;
import io.locked.spi.PessimisticHold;
import java.time.Duration;
import java.util.List;
import static io.locked.internal.readwrite.ReadWriteSlots.closeAfterFailure;
import static io.locked.internal.readwrite.ReadWriteSlots.giveBack;
import static io.locked.internal.readwrite.ReadWriteSlots.lockAnotherRow;
import static io.locked.internal.readwrite.ReadWriteSlots.pause;
import static io.locked.internal.readwrite.ReadWriteSlots.readHolding;

/**
 * The readers' side of {@link ReadWriteSlots}: a reader joins its JVM's group, or forms one by taking a
 * slot, sharing the key's shared row ({@code PESSIMISTIC}) and then reading the writer row; it waits
 * while a writer of this JVM waits or writes, and while the writer row is held.
 */
final class ReadSide {
    /**
     * How often a group that admits readers looks at the writer row, as often as a waiting reader of
     * another JVM polls: a writer of another JVM waits that long at most before new readers of this
     * JVM stop joining, then for the readers inside.
     */
    static final long WRITER_LOOK_NANOS = Backoff.LONGEST_PAUSE_NANOS;
    private final TimeSource time;
    private final LocalReadWrite local;

    ReadSide(TimeSource time, LocalReadWrite local) {
        this.time = time;
        this.local = local;
    }

    /**
     * @return the read, or null when none came within the wait; under this thread's write of the key,
     *         a nested hold of that write (a downgrade)
     */
    LockHandle read(LockRequest request, ThreadScope scope, long deadline, RowAccess rows) {
        LockHandle underTheWrite = rows.reenter(scope, LockRows.writer(request.key()));
        if (underTheWrite != null) {
            return underTheWrite;
        }
        KeyState state = local.enter(request.key());
        synchronized (state) {
            state.readersArriving++;
        }
        try {
            return readIn(state, request, deadline, rows);
        } finally {
            local.releaseIfUnwanted(state, KeyState::arrivalEnded);
            local.released(state);
        }
    }

    /** @return a reader's hold in a group of this JVM, or null when none came within the wait */
    private LockHandle readIn(KeyState state, LockRequest request, long deadline, RowAccess rows) {
        String writer = LockRows.writer(request.key());
        Backoff backoff = Backoff.standard();
        while (true) {
            ReaderGroup lookFor = null;
            boolean lead = false;
            ReaderGroup.Member joined = null;
            ReaderGroup lost = null;
            long seen;
            synchronized (state) {
                ReaderGroup mine = state.readBy(Thread.currentThread());
                ReaderGroup open = state.writers == 0
                        || local.seededBug == ReadWriteSeededBug.READER_PAST_WAITING_WRITER ? state.group : null;
                if (open != null && !open.slot.isValid()) {
                    lost = state.closeToNewReaders(open);
                    open = null;
                }
                if (mine != null && mine.slot.isValid()) {
                    joined = mine.join(state); // a read inside a read never waits: it would wait for itself
                } else if (open != null && (open.looking || time.nanoTime() - open.writerFreeAtNanos < WRITER_LOOK_NANOS)) {
                    joined = open.join(state);
                } else if (open != null) {
                    lookFor = open;
                    lookFor.looking = true;
                } else if (state.writers == 0 && (state.forming == 0 || deadline - time.nanoTime() <= 0)) {
                    lead = true;
                    state.forming++;
                }
                seen = state.changes();
            }
            local.release(state, lost);
            if (joined != null) {
                try {
                    rows.joined(joined.token());
                } catch (RuntimeException | Error reportFailed) {
                    // the caller never sees the hold: leave the group now, or its slot stays held for good
                    closeAfterFailure(joined, reportFailed);
                    throw reportFailed;
                }
                return joined;
            }
            boolean writerWaits;
            if (lookFor != null) {
                writerWaits = lookedForAWriter(state, lookFor, writer, rows);
            } else if (lead) {
                FormedOrNot formed = form(state, request, rows);
                if (formed.read != null) {
                    return formed.read;
                }
                writerWaits = formed.writerSeen;
                if (!writerWaits && !pause(state, seen, deadline, backoff, time)) {
                    return null; // every slot taken all the wait
                }
            } else if (!pause(state, seen, deadline, Backoff.LONGEST_PAUSE_NANOS)) {
                return null; // a writer of this JVM waited or wrote, or a group was forming, all the wait
            } else {
                writerWaits = false;
            }
            if (writerWaits && !awaitWriterRowFree(state, writer, deadline, backoff, rows)) {
                return null;
            }
        }
    }

    /** @return whether a writer holds the row: the group no longer admits */
    private boolean lookedForAWriter(KeyState state, ReaderGroup group, String writer, RowAccess rows) {
        boolean held = true;
        ReaderGroup closed = null;
        try {
            held = readHolding(() -> rows.inspect(writer), null).held();
        } finally {
            synchronized (state) {
                group.looking = false;
                if (!held) {
                    group.writerFreeAtNanos = time.nanoTime();
                } else {
                    // a writer of another JVM waits: it gets in after the readers inside, not after a stream
                    closed = state.closeToNewReaders(group);
                }
            }
            local.release(state, closed);
        }
        return held;
    }

    private record FormedOrNot(LockHandle read, boolean writerSeen) {
    }

    /**
     * Takes a free slot, shares the key's shared row in the slot's transaction ({@code PESSIMISTIC}), and
     * reads the writer row, for a new group of this JVM's readers.
     */
    private FormedOrNot form(KeyState state, LockRequest request, RowAccess rows) {
        String key = request.key();
        String sharedRow = LockRows.shared(key);
        ReaderGroup formed = null;
        boolean writerSeen = false;
        try {
            PessimisticHold.AnotherRow shared = PessimisticHold.AnotherRow.ABSENT;
            // the key's first pessimistic reader creates the shared row once its slot's transaction has
            // ended, then takes a slot again; where a writer's look at the missing row keeps its place,
            // it waits for that writer
            for (int attempt = 0; attempt < 2 && shared == PessimisticHold.AnotherRow.ABSENT; attempt++) {
                if (attempt > 0 && !rows.createRow(sharedRow)) {
                    writerSeen = true;
                    break;
                }
                LockHandle slot = takeAFreeSlot(key, rows, time);
                if (slot == null) {
                    break;
                }
                shared = request.mode() == LockMode.PESSIMISTIC
                        ? readHolding(() -> lockAnotherRow(slot, sharedRow, true), slot)
                        : PessimisticHold.AnotherRow.LOCKED;
                LockRowState writerRow = shared != PessimisticHold.AnotherRow.LOCKED || writerOfThisJvm(state) ? null
                        : readHolding(() -> rows.inspect(LockRows.writer(key)), slot);
                if (rows.closing()) {
                    giveBack(slot); // the close began during the look: the drain grants nothing new
                    throw new LockManagerClosedException("This LockManager was closed while '" + key + "' was being acquired");
                }
                if (writerRow != null && !writerRow.held()) {
                    // every later writer draws its token on that row, above this one
                    long token = writerRow.token() == null ? 0 : writerRow.token();
                    formed = new ReaderGroup(slot.handOver(), token, time.nanoTime());
                } else {
                    // a writer holds the key or waits for it (one of this JVM that came since this reader began to
                    // form is not looked for: it would find this slot held and wait for it): give the slot back,
                    // wait until its row is free
                    giveBack(slot);
                    writerSeen = shared != PessimisticHold.AnotherRow.ABSENT;
                }
            }
        } catch (RuntimeException | Error failed) {
            synchronized (state) {
                state.forming--;
                state.changed();
            }
            throw failed;
        }
        ReaderGroup.Member read;
        ReaderGroup unused;
        synchronized (state) {
            state.forming--;
            if (formed == null) {
                state.changed();
                return new FormedOrNot(null, writerSeen);
            }
            // joined at once, whichever group: a writer of this JVM must never see a group without its first reader
            ReaderGroup joinable = state.joinableInsteadOf(formed);
            if (joinable != null) {
                read = joinable.join(state);
                unused = formed;
            } else {
                unused = state.formed(formed);
                read = formed.join(state);
            }
        }
        local.release(state, unused);
        return new FormedOrNot(read, false);
    }

    private static boolean writerOfThisJvm(KeyState state) {
        synchronized (state) {
            return state.writers > 0;
        }
    }

    /** @return a free reader slot of the key, tried from a random one on, or null when all 32 are taken */
    private static LockHandle takeAFreeSlot(String key, RowAccess rows, TimeSource time) {
        List<String> slots = RowKeys.readerSlotKeys(key); // the rows a writer looks at
        int first = time.spread(slots.size());
        for (int i = 0; i < slots.size(); i++) {
            LockHandle slot = rows.take(slots.get((first + i) % slots.size()), Duration.ZERO);
            if (slot != null) {
                return slot;
            }
        }
        return null;
    }

    /**
     * Waits for a writer seen in the writer row, of another JVM or of this one, to leave. Meanwhile this
     * reader does not count as arriving: a group parked for it would keep its slot from that writer. While a
     * writer of this JVM is there, the row is not looked at: the reader waits in this JVM for that writer's end,
     * which it is told of ({@link #readIn}), rather than read the row again and again meanwhile.
     *
     * @return true once the writer row is free, or a writer of this JVM is there within the wait; false when the
     *         wait ran out first
     */
    private boolean awaitWriterRowFree(KeyState state, String writer, long deadline, Backoff backoff,
                                       RowAccess rows) {
        local.releaseIfUnwanted(state, KeyState::arrivalEnded);
        try {
            while (true) {
                long seen;
                synchronized (state) {
                    seen = state.changes();
                    if (state.writers > 0) {
                        return deadline - time.nanoTime() > 0;
                    }
                }
                if (!readHolding(() -> rows.inspect(writer), null).held()) {
                    return true;
                }
                if (!pause(state, seen, deadline, backoff, time)) {
                    return false;
                }
            }
        } finally {
            synchronized (state) {
                state.readersArriving++;
            }
        }
    }
}
