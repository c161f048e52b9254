package io.locked.internal;

import io.locked.api.LockHandle;
import io.locked.api.LockInfo;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.LockStoreUnavailableException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
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
 * <p>The readers of one JVM share a slot ({@link ReaderGroup}): one takes it, the others join it
 * without a statement while no writer waits. Readers and writers of one JVM wait for each other in
 * {@link LocalReadWrite}, woken by each other's release; only a wait for another JVM polls the table.
 *
 * <p>Tokens: a writer's is its row's, so each writer's is above the one before. A reader's is the
 * token of the writer row when its group's slot was taken, the last writer's: every writer after it
 * draws above it, on the same row, whatever the clock does. A reader's token thus tells which writes
 * it may have seen, and fenced writes belong to writers.
 */
final class ReadWriteSlots {
    /**
     * How often a group that admits readers looks at the writer row, as often as a waiting reader of
     * another JVM polls: a writer of another JVM waits that long at most before new readers of this
     * JVM stop joining, then for the readers inside.
     */
    static final long WRITER_LOOK_NANOS = Backoff.LONGEST_PAUSE_NANOS;
    /** How long a writer's check of its own readers' pessimistic slot session may take. */
    private static final Duration SESSION_CHECK = Duration.ofSeconds(2);
    private final TimeSource time;
    private final LocalReadWrite local;

    ReadWriteSlots(TimeSource time) {
        this.time = time;
        this.local = new LocalReadWrite(time);
    }

    /**
     * @return the read, or null when none came within the wait; under this thread's write of the key,
     *         a nested hold of that write (a downgrade)
     */
    LockHandle read(LockRequest request, ThreadScope scope, long deadline, RowAccess rows) {
        LockHandle underTheWrite = rows.reenter(scope, LockRequest.writerKey(request.key()));
        if (underTheWrite != null) {
            return underTheWrite;
        }
        LocalReadWrite.KeyState state = local.enter(request.key());
        synchronized (state) {
            state.readersArriving++;
        }
        try {
            return readIn(state, request.key(), deadline, rows);
        } finally {
            local.releaseIfUnwanted(state, LocalReadWrite.KeyState::arrivalEnded);
            local.released(state);
        }
    }

    /** @return a reader's hold in a group of this JVM, or null when none came within the wait */
    private LockHandle readIn(LocalReadWrite.KeyState state, String key, long deadline, RowAccess rows) {
        String writer = LockRequest.writerKey(key);
        Backoff backoff = Backoff.standard();
        while (true) {
            ReaderGroup lookFor = null;
            boolean lead = false;
            ReaderGroup.Member joined = null;
            ReaderGroup lost = null;
            long seen;
            synchronized (state) {
                ReaderGroup mine = state.readBy(Thread.currentThread());
                ReaderGroup open = state.writers == 0 ? state.group : null;
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
                rows.joined();
                return joined;
            }
            boolean writerWaits;
            if (lookFor != null) {
                writerWaits = lookedForAWriter(state, lookFor, writer, rows);
            } else if (lead) {
                FormedOrNot formed = form(state, key, rows);
                if (formed.read != null) {
                    return formed.read;
                }
                writerWaits = formed.writerSeen;
                if (!writerWaits && !pause(state, seen, deadline, backoff)) {
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
    private boolean lookedForAWriter(LocalReadWrite.KeyState state, ReaderGroup group, String writer, RowAccess rows) {
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

    /** Takes a free slot and reads the writer row, for a new group of this JVM's readers. */
    private FormedOrNot form(LocalReadWrite.KeyState state, String key, RowAccess rows) {
        ReaderGroup formed = null;
        boolean writerSeen = false;
        try {
            LockHandle slot = null;
            int first = ThreadLocalRandom.current().nextInt(LockRequest.MAX_READERS);
            for (int i = 0; i < LockRequest.MAX_READERS && slot == null; i++) {
                slot = rows.take(LockRequest.readerSlotKey(key, (first + i) % LockRequest.MAX_READERS + 1), Duration.ZERO);
            }
            if (slot != null) {
                LockHandle taken = slot;
                LockInfo writerRow = readHolding(() -> rows.inspect(LockRequest.writerKey(key)), taken);
                if (writerRow.held()) {
                    // a writer holds the key or waits for it: give the slot back, wait until its row is free
                    slot.close();
                    writerSeen = true;
                } else {
                    // every later writer draws its token on that row, above this one
                    long token = writerRow.token() == null ? 0 : writerRow.token();
                    formed = new ReaderGroup(slot.handOver(), slot.token(), token, time.nanoTime());
                }
            }
        } catch (RuntimeException | Error failed) {
            synchronized (state) {
                state.forming--;
                state.changed();
            }
            throw failed;
        }
        synchronized (state) {
            state.forming--;
            if (formed == null) {
                state.changed();
                return new FormedOrNot(null, writerSeen);
            }
            // formed and joined at once: a writer of this JVM must never see it without its first reader
            state.formed(formed);
            return new FormedOrNot(formed.join(state), false);
        }
    }

    /**
     * Waits for a writer seen in the writer row, of another JVM or of this one, to leave. Meanwhile this
     * reader does not count as arriving: a group parked for it would keep its slot from that writer.
     *
     * @return true once the writer row is free; false when the wait ran out first
     */
    private boolean awaitWriterRowFree(LocalReadWrite.KeyState state, String writer, long deadline, Backoff backoff,
                                       RowAccess rows) {
        local.releaseIfUnwanted(state, LocalReadWrite.KeyState::arrivalEnded);
        try {
            while (true) {
                long seen;
                synchronized (state) {
                    seen = state.changes();
                }
                if (!readHolding(() -> rows.inspect(writer), null).held()) {
                    return true;
                }
                if (!pause(state, seen, deadline, backoff)) {
                    return false;
                }
            }
        } finally {
            synchronized (state) {
                state.readersArriving++;
            }
        }
    }

    /**
     * @return the write, or null when the writer row or the readers' leaving did not come within the wait
     * @throws IllegalStateException when this thread reads the key: its write would wait for itself
     */
    LockHandle write(LockRequest request, ThreadScope scope, long deadline, RowAccess rows) {
        String writer = LockRequest.writerKey(request.key());
        LockHandle nested = rows.reenter(scope, writer);
        if (nested != null) {
            return nested;
        }
        LocalReadWrite.KeyState state = local.enter(request.key());
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
                write = rows.take(writer, Duration.ofNanos(Math.max(0, deadline - time.nanoTime())));
                if (write == null) {
                    return null;
                }
                synchronized (state) {
                    state.writerHoldsTheRow();
                }
                if (!awaitNoReader(request, deadline, rows, write, state)) {
                    return null;
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

    private void writerLeft(LocalReadWrite.KeyState state, boolean heldTheRow, long token) {
        if (!local.releaseIfUnwanted(state, left -> left.writerLeft(heldTheRow, token))) {
            local.ended(state); // woken by the write's end already: this forgets the state if nothing uses it
        }
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
                                  LocalReadWrite.KeyState state) {
        Backoff backoff = Backoff.standard();
        String prefix = LockRequest.readerSlotKey(request.key(), 1);
        String readers = prefix.substring(0, prefix.length() - 1);
        Map<String, LockInfo> waitedFor = null;
        boolean look = true;
        while (true) {
            long seen;
            synchronized (state) {
                seen = state.changes();
            }
            if (look) {
                Map<String, LockInfo> held = new HashMap<>();
                for (LockInfo slot : readHolding(() -> rows.list(readers, LockRequest.MAX_READERS), write)) {
                    if (slot.held() && (waitedFor == null || waitedFor.containsKey(slot.key()))) {
                        held.put(slot.key(), slot);
                    }
                }
                waitedFor = held;
            }
            Map<String, ReaderGroup> withoutReaders;
            Set<String> withReaders;
            synchronized (state) {
                // nobody joins a group of this JVM while this writer is here: an empty one's slot does not count
                withoutReaders = state.groupsWithoutReaders();
                withReaders = state.slotsWithReaders();
            }
            waitedFor.entrySet().removeIf(slot -> stillOurs(slot.getValue(), withoutReaders.get(slot.getKey())));
            if (waitedFor.isEmpty()) {
                return true;
            }
            look = !withReaders.containsAll(waitedFor.keySet());
            boolean waited;
            try {
                waited = pause(state, seen, deadline, backoff);
            } catch (RuntimeException interrupted) {
                closeAfterFailure(write, interrupted);
                throw interrupted;
            }
            if (!waited) {
                write.close();
                return false;
            }
        }
    }

    /**
     * @return whether the held slot row is still the given empty group's of this JVM: false for null, or for
     *         a row held in the other mode. The group may have lost the row to an operator's forced release,
     *         and another JVM's reader may have taken it and entered since, while the group has not learnt of
     *         the loss yet. A lease's row then shows another token. A pessimistic hold's row may show an
     *         older token than the hold's, so its session is asked now, after the list: a session alive
     *         then was alive when the list saw the row held, so the row was the group's, and any reader
     *         taking it later meets this writer's row.
     */
    private static boolean stillOurs(LockInfo slot, ReaderGroup empty) {
        if (empty == null || slot.mode() != empty.slot.mode()) {
            return false;
        }
        if (slot.mode() == LockMode.OPTIMISTIC) {
            return slot.token() != null && slot.token() == empty.slotToken;
        }
        return ((AcquisitionView) empty.slot).acquisition.confirmHeld(SESSION_CHECK);
    }

    /** Waits for the next pause of the backoff, or until this JVM's readers or writers of the key change. */
    private boolean pause(LocalReadWrite.KeyState state, long seen, long deadline, Backoff backoff) {
        long remaining = deadline - time.nanoTime();
        return remaining > 0 && pause(state, seen, deadline, backoff.nextPauseNanos(remaining));
    }

    private static boolean pause(LocalReadWrite.KeyState state, long seen, long deadline, long nanos) {
        synchronized (state) {
            return state.await(seen, deadline, nanos);
        }
    }

    /**
     * Reads the table while holding a row (or none), which is released if the read fails: a failed read must
     * not leave a reader slot or the writer row held. A read that failed as "store unavailable" is
     * tried once more first: H2 now and then fails a read that meets a row another transaction changes.
     */
    private static <T> T readHolding(Supplier<T> read, LockHandle held) {
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

    private static void closeAfterFailure(LockHandle held, Throwable failure) {
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
