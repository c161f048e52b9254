package io.locked.internal;

import static io.locked.internal.ReadWriteSlots.closeAfterFailure;
import static io.locked.internal.ReadWriteSlots.pause;
import static io.locked.internal.ReadWriteSlots.readHolding;

import io.locked.api.LockHandle;
import io.locked.api.LockInfo;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The writers' side of {@link ReadWriteSlots}: a writer takes the writer row, then waits for the readers
 * inside, those of other JVMs in the table and those of its own JVM here.
 */
final class WriteSide {
    /** How long a writer's check of its own readers' pessimistic slot session may take. */
    private static final Duration SESSION_CHECK = Duration.ofSeconds(2);
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
            LocalReadWrite.OwnSlots own;
            synchronized (state) {
                // nobody joins a group of this JVM while this writer is here: an empty one's slot does not count
                own = state.ownSlots();
            }
            waitedFor.entrySet().removeIf(slot -> stillOurs(slot.getValue(), own.withoutReaders().get(slot.getKey())));
            if (waitedFor.isEmpty()) {
                return true;
            }
            look = !own.withReaders().containsAll(waitedFor.keySet());
            boolean waited;
            try {
                waited = pause(state, seen, deadline, backoff, time);
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
            return slot.token() != null && slot.token() == empty.slot.token(); // the slot handle shows its row's token
        }
        return ((AcquisitionView) empty.slot).acquisition.confirmHeld(SESSION_CHECK);
    }
}
