package io.locked.internal.readwrite;

import io.locked.api.LockInterruptedException;
import io.locked.api.LockMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;

/** One key's state, guarded by its own monitor; dropped from the map when nothing uses it. */
final class KeyState {
    final LocalReadWrite owner;
    final String key;
    /** Its reader groups that still hold their slot: the current one, parked or not, and closed ones draining. */
    private final List<ReaderGroup> live = new ArrayList<>(1);
    /**
     * Groups taken out of {@link #live}, without a reader, whose slot's release runs now on some thread:
     * nobody joins them any more, yet their row still shows held until that release ends.
     */
    private final List<ReaderGroup> releasing = new ArrayList<>(0);
    /** The group new readers join while no writer of this JVM is there, or null. */
    ReaderGroup group;
    /** Writers of this JVM that wait for the key or hold it. */
    int writers;
    /** Whether a writer of this JVM holds the writer row. */
    boolean writerHolds;
    /**
     * Readers taking a slot for a new group: the others wait for it and join it, but for a reader
     * whose wait is over, which forms one of its own.
     */
    int forming;
    /**
     * Readers of this JVM between their request and their hold that will join a group of this JVM
     * when no writer of it is there: a parked group waits for them. Not those waiting for a writer of
     * another JVM to leave, which holds the writer row and may wait for that group's slot.
     */
    int readersArriving;
    /** Threads inside a call on it, live and releasing groups and writers: the state stays while above zero. */
    int users;
    private long changes;

    KeyState(LocalReadWrite owner, String key) {
        this.owner = owner;
        this.key = key;
    }

    /** @return the live group this thread reads in, or null */
    ReaderGroup readBy(Thread thread) {
        for (ReaderGroup live : live) {
            if (live.readBy(thread)) {
                return live;
            }
        }
        return null;
    }

    /**
     * @return the slots of this JVM's groups that are not known lost (a lost one's row may be another
     *         JVM's reader's now), those without a reader with their group; and the slots whose release
     *         runs now, without a reader: a writer of this JVM must not take that release for a reader
     *         inside (a try of the write would be refused for its own JVM's slot on the way out)
     */
    LocalReadWrite.OwnSlots ownSlots() {
        LocalReadWrite.OwnSlots own = new LocalReadWrite.OwnSlots(new HashMap<>(2), new HashSet<>(2));
        if (owner.seededBug != ReadWriteSeededBug.RELEASE_TAKEN_FOR_A_READER) {
            // no validity asked: a release under way has closed the slot's handle, its row shows its token
            releasing.forEach(leaving -> own.withoutReaders().put(leaving.slot.rowKey(), leaving));
        }
        for (ReaderGroup live : live) {
            if (!live.slot.isValid()) {
                continue;
            }
            if (live.members == 0) {
                own.withoutReaders().put(live.slot.rowKey(), live);
            } else {
                own.withReaders().add(live.slot.rowKey());
            }
        }
        return own;
    }

    /**
     * A reader formed a group of its own while another reader of this JVM formed the current one (a reader
     * whose wait is over does not wait for another's forming): it joins the current group instead, and
     * gives its own slot back, when that group admits readers. Its look at the writer row, taken after its
     * own slot, is as fresh as any: the current group goes on admitting on it.
     *
     * @return the current group to join instead of the formed one, or null when the formed one is to be used
     */
    ReaderGroup joinableInsteadOf(ReaderGroup formed) {
        ReaderGroup current = group;
        if (current == null || writers > 0 || !current.slot.isValid()
                || owner.seededBug == ReadWriteSeededBug.BLIND_FORMING) {
            return null;
        }
        current.token = Math.max(current.token, formed.token);
        if (formed.writerFreeAtNanos - current.writerFreeAtNanos > 0) {
            current.writerFreeAtNanos = formed.writerFreeAtNanos;
        }
        return current;
    }

    /**
     * A new group holds its slot, and admits readers. A group is never replaced while it holds its slot
     * without a reader: nobody could join it or decide its release any more.
     *
     * @return the group it replaced, to release now, when that one has no reader (one with readers is
     *         released by the last of them); else null
     */
    ReaderGroup formed(ReaderGroup formed) {
        ReaderGroup replaced = group;
        live.add(formed);
        users++;
        group = formed;
        changed();
        if (owner.seededBug == ReadWriteSeededBug.BLIND_FORMING) {
            return null; // the replaced group, even empty, is left to nobody
        }
        return replaced == null ? null : releasedIfEmpty(replaced);
    }

    /** @return every group without a reader, to release now: the lock manager closes, nothing is kept */
    List<ReaderGroup> emptyGroups() {
        List<ReaderGroup> empty = new ArrayList<>(1);
        for (ReaderGroup candidate : List.copyOf(live)) {
            ReaderGroup released = releasedIfEmpty(candidate);
            if (released != null) {
                empty.add(released);
            }
        }
        return empty;
    }

    /** @return the group, to be released now (its slot is still held), when it had no reader; else null */
    ReaderGroup closeToNewReaders(ReaderGroup closing) {
        if (group == closing) {
            group = null;
            changed();
        }
        return releasedIfEmpty(closing);
    }

    /** @return the group to release now, or null when it stays parked for the readers after this JVM's writer */
    ReaderGroup lastReaderLeft(ReaderGroup left) {
        if (owner.seededBug != ReadWriteSeededBug.SILENT_GROUP_END) {
            changed(); // this JVM's writer waits for this slot no longer
        }
        return left == group ? unwantedGroup() : releasedIfEmpty(left);
    }

    /**
     * A writer of this JVM comes: no reader joins until it has written.
     *
     * @return an empty group to release now: kept for readers about to join, it would keep its slot
     *         from a writer of another JVM that holds the writer row, which this writer waits for
     */
    ReaderGroup writerComes() {
        writers++;
        users++;
        changed();
        return unwantedGroup();
    }

    /** The writer of this JVM holds the writer row: an optimistic group that empties now is parked. */
    void writerHoldsTheRow() {
        writerHolds = true;
    }

    /**
     * A writer of this JVM has released, or gave up.
     *
     * @param heldTheRow whether it held the writer row
     * @param token      its token if it wrote, else a negative number
     * @return a parked group to release now, else null
     */
    ReaderGroup writerLeft(boolean heldTheRow, long token) {
        writers--;
        users--;
        if (heldTheRow) {
            writerHolds = false;
            if (group != null) {
                group.keep = ReaderGroup.Keep.NOT_BEGUN; // parked until now: its moment for the readers after the write
            }
        }
        changed();
        ReaderGroup unwanted = unwantedGroup();
        if (unwanted != null || group == null) {
            return unwanted;
        }
        if (token >= 0) {
            // the readers after this write show its token, as if they had read the writer row
            group.token = Math.max(group.token, token);
            group.writerFreeAtNanos = owner.time.nanoTime();
        }
        return null;
    }

    /**
     * A reader stopped arriving: it holds, gave up, or waits for a writer of another JVM.
     *
     * @return a parked group to release now that no reader of this JVM arrives for it, else null
     */
    ReaderGroup arrivalEnded() {
        readersArriving--;
        return unwantedGroup();
    }

    /**
     * An empty group keeps its slot only while someone of this JVM will come for it: the writer that
     * holds the writer row (nobody else can take that row meanwhile; an optimistic group only), or,
     * with no writer of this JVM there, readers about to join it. Otherwise it could keep its slot
     * from a writer of another JVM.
     *
     * @return the current group, to release now, when it has no reader and nobody keeps it; else null
     */
    ReaderGroup unwantedGroup() {
        if (group == null || group.members > 0) {
            return null;
        }
        boolean parkedForTheWriter = writerHolds && group.slot.mode() == LockMode.OPTIMISTIC;
        boolean kept = !owner.closed && group.slot.isValid()
                && (parkedForTheWriter || writers == 0 && readersArriving > 0 || keptAMoment(group));
        return kept ? null : releasedIfEmpty(group);
    }

    /** @return whether the empty current group stays held for its moment ({@link ReaderSlotKeep}) */
    private boolean keptAMoment(ReaderGroup empty) {
        return owner.keep.keeps(empty, () -> owner.keepEnded(this, empty));
    }

    ReaderGroup releasedIfEmpty(ReaderGroup candidate) {
        if (candidate.members > 0 || !live.remove(candidate)) {
            return null;
        }
        releasing.add(candidate); // until its release ends (releaseEnded)
        if (group == candidate) {
            group = null;
        }
        changed();
        return candidate;
    }

    /** The release of a group {@link #releasedIfEmpty} handed out has ended, its row released or lost. */
    void releaseEnded(ReaderGroup released) {
        if (releasing.remove(released)) {
            users--;
        }
        changed();
    }

    /** @return whether a release of one of its groups is under way ({@link #releasing}) */
    boolean releasesUnderWay() {
        return !releasing.isEmpty();
    }

    /** Wakes whoever waits on this key in this JVM: something they wait for may have changed. */
    void changed() {
        changes++;
        notifyAll();
    }

    /** @return a mark to pass to {@link #await} */
    long changes() {
        return changes;
    }

    /**
     * Waits, under this state's monitor, until something changes after {@code seen}, at most
     * {@code nanos}, cut to the deadline.
     *
     * @return false, without waiting, when the deadline has passed
     * @throws LockInterruptedException if the thread was interrupted (its flag set again)
     */
    boolean await(long seen, long deadline, long nanos) {
        long until = Math.min(deadline, owner.time.nanoTime() + nanos);
        if (deadline - owner.time.nanoTime() <= 0) {
            return false;
        }
        try {
            long left;
            while (changes == seen && (left = until - owner.time.nanoTime()) > 0) {
                wait(left / 1_000_000, (int) (left % 1_000_000));
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new LockInterruptedException(key, interrupted);
        }
        return true;
    }
}
