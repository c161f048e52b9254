package io.locked.internal.readwrite;

import io.locked.api.HolderKind;
import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockMode;
import io.locked.api.event.LockRenewalFailed;
import io.locked.internal.exclusive.AcquisitionView;
import io.locked.internal.exclusive.SessionConfirmation;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The readers of one JVM that share one reader slot of a key. The first takes the slot and reads the
 * writer row as any reader does ({@link ReadWriteSlots}); readers that come while the group admits join
 * it without a statement; the last to leave releases the slot. That is safe whoever joins and when:
 * a writer waits until no slot is held, so no writer enters while the group holds its slot. Joining
 * is only a matter of fairness, which {@link LocalReadWrite} governs: the group stops admitting when a
 * writer of this JVM comes, when the slot's hold is no longer valid, and when a look at the writer row
 * finds a writer of another JVM waiting.
 *
 * <p>Its state is guarded by the monitor of its key's {@link KeyState}.
 */
final class ReaderGroup {
    /** The slot's hold, out of every thread's scope: it belongs to the group, not to its first reader. */
    final AcquisitionView slot;
    /**
     * What a reader joining it shows: the writer row's token when the slot was taken, or the token of a
     * writer of this JVM that wrote while the group was parked; never above the last writer's, below every
     * later one's ({@link ReadWriteSlots}).
     */
    long token;
    /** When the writer row was last seen free, on {@link TimeSource#nanoTime()}. */
    long writerFreeAtNanos;
    /** Whether one of its joiners is looking at the writer row: the others join meanwhile. */
    boolean looking;
    /** Its keep while empty ({@link LocalReadWrite#keepFor}): begins when nobody else keeps it. */
    Keep keep = Keep.NOT_BEGUN;
    /** When a running keep ends, on {@link System#nanoTime()}, the clock of its timer. */
    long keptUntilNanos;
    /** Whether it waits in the queue of the keeps ({@link ReaderSlotKeep}), whose sweep will end its keep. */
    boolean keepTimed;
    private final Map<Thread, Integer> holdsInScope = new HashMap<>(4);
    /** Its readers inside: with none, the slot is parked or being released. */
    int members;

    /** Tells a reader that leaves while others stay whether a {@code PESSIMISTIC} slot's session is still there. */
    private final SessionConfirmation sessions;

    ReaderGroup(LockHandle slot, long token, long writerFreeAtNanos) {
        this.slot = (AcquisitionView) slot;
        this.sessions = new SessionConfirmation(this.slot.acquisition);
        this.token = token;
        this.writerFreeAtNanos = writerFreeAtNanos;
    }

    /** @return whether this thread reads in this group, with a hold it has not closed nor handed over */
    boolean readBy(Thread thread) {
        return holdsInScope.containsKey(thread);
    }

    /** The states of its keep. */
    enum Keep { NOT_BEGUN, RUNNING, OVER }

    /** Adds a reader, of this thread; call under the key state's monitor. */
    Member join(KeyState state) {
        members++;
        keep = Keep.NOT_BEGUN;
        holdsInScope.merge(Thread.currentThread(), 1, Integer::sum);
        return new Member(this, state, Thread.currentThread(), token);
    }

    /** @return whether the group is now empty; call under the key state's monitor */
    private boolean leave(Member member) {
        leaveScope(member);
        return --members == 0;
    }

    private void leaveScope(Member member) {
        if (member.scopedTo != null) {
            holdsInScope.computeIfPresent(member.scopedTo, (thread, holds) -> holds == 1 ? null : holds - 1);
            member.scopedTo = null;
        }
    }

    /** One reader's hold: its own handle on the group's slot. */
    static final class Member implements LockHandle {
        private final ReaderGroup group;
        private final KeyState state;
        private final long token;
        /** The thread whose scope it is in, until closed or handed over; guarded by the key state. */
        private Thread scopedTo;
        private boolean closed;

        private Member(ReaderGroup group, KeyState state, Thread scopedTo, long token) {
            this.group = group;
            this.state = state;
            this.scopedTo = scopedTo;
            this.token = token;
        }

        @Override
        public String key() {
            return group.slot.key();
        }

        @Override
        public HolderKind kind() {
            return group.slot.kind();
        }

        @Override
        public int slot() {
            return group.slot.slot();
        }

        @Override
        public LockMode mode() {
            return group.slot.mode();
        }

        @Override
        public long token() {
            return token;
        }

        @Override
        public boolean isValid() {
            synchronized (state) {
                if (closed) {
                    return false;
                }
            }
            return group.slot.isValid();
        }

        /** The group's readers share the slot's lease, and hear of its failed renewals. */
        @Override
        public LockHandle onRenewalFailure(Consumer<? super LockRenewalFailed> listener) {
            group.slot.onRenewalFailure(listener);
            return this;
        }

        @Override
        public LockHandle handOver() {
            synchronized (state) {
                group.leaveScope(this);
            }
            return this;
        }

        /**
         * The last reader out releases the slot unless it is kept, and learns of its loss from that
         * release; another reader learns of it from the slot's hold, which the watchdog keeps up to date,
         * and for a {@code PESSIMISTIC} slot from a check of its session that began after this reader began
         * to leave: a session that ended frees the row lock at once, without a word to this JVM.
         */
        @Override
        public void close() {
            ReaderGroup release = null;
            boolean slotValid;
            synchronized (state) {
                if (closed) {
                    return;
                }
                closed = true;
                // asked before leaving: once this reader left, another may release the slot at any moment
                slotValid = group.slot.isValid();
                if (group.leave(this)) {
                    release = state.lastReaderLeft(group);
                }
            }
            if (release != null) {
                try {
                    group.slot.close();
                } finally {
                    state.owner.ended(state, group);
                }
            } else if (!slotValid || group.slot.mode() == LockMode.PESSIMISTIC && !group.sessions.confirm()) {
                throw new LockLostException(key(), token(), "the reader slot this JVM's readers of the key share"
                        + " was lost (its lease ran out or was taken over, or its session ended)");
            }
        }

        @Override
        public String toString() {
            return "LockHandle[" + key() + ", " + mode() + ", token " + token() + ", shared by this JVM's readers]";
        }
    }
}
