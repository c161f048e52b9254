package io.locked.internal;

import io.locked.api.LockInterruptedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one lock manager knows of each key's read/write lock in this JVM: its reader groups
 * ({@link ReaderGroup}), its writers, and who waits. Readers and writers of one JVM wait here for each
 * other, woken by a release, instead of polling the table; only waits for other JVMs poll. Writers go
 * first: while a writer of this JVM waits or writes, no reader joins or forms a group.
 */
final class LocalReadWrite {
    private final ConcurrentHashMap<String, KeyState> keys = new ConcurrentHashMap<>();
    private final TimeSource time;

    LocalReadWrite(TimeSource time) {
        this.time = time;
    }

    /** One key's state, guarded by its own monitor; dropped from the map when nothing uses it. */
    static final class KeyState {
        final LocalReadWrite owner;
        final String key;
        /** Its reader groups that still hold their slot, the admitting one among them. */
        private final List<ReaderGroup> live = new ArrayList<>(1);
        /** The group new readers join, or null. */
        ReaderGroup admitting;
        /** Writers of this JVM that wait for the key or hold it. */
        int writers;
        /** Whether a reader is taking a slot for a new group: the others wait for it, and join it. */
        boolean forming;
        /** Threads inside a call on it, live groups and writers: the state stays while above zero. */
        private int users;
        private long changes;

        private KeyState(LocalReadWrite owner, String key) {
            this.owner = owner;
            this.key = key;
        }

        /** @return the live group this thread reads in, or null */
        ReaderGroup readBy(Thread thread) {
            for (ReaderGroup group : live) {
                if (group.readBy(thread)) {
                    return group;
                }
            }
            return null;
        }

        /** A new group holds its slot, and admits readers. */
        void formed(ReaderGroup group) {
            live.add(group);
            users++;
            admitting = group;
            changed();
        }

        /** The group's last reader left: its slot is being released. */
        void ended(ReaderGroup group) {
            live.remove(group);
            users--;
            if (admitting == group) {
                admitting = null;
            }
            changed();
        }

        /** A writer of this JVM comes: no reader joins until it has written. */
        void writerComes() {
            writers++;
            users++;
            admitting = null;
            changed();
        }

        /** A writer of this JVM has written and released, or gave up. */
        void writerLeft() {
            writers--;
            users--;
            changed();
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
            long remaining = deadline - owner.time.nanoTime();
            if (remaining <= 0) {
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

    /** @return the key's state, held for the caller until {@link #released} */
    KeyState enter(String key) {
        return keys.compute(key, (k, existing) -> {
            KeyState state = existing == null ? new KeyState(this, k) : existing;
            synchronized (state) {
                state.users++;
            }
            return state;
        });
    }

    /** A caller is done with the state (never called under its monitor): dropped when nothing uses it. */
    void released(KeyState state) {
        synchronized (state) {
            state.users--;
        }
        forgetIfUnused(state);
    }

    /** Drops the state when nothing uses it (never called under its monitor). */
    void forgetIfUnused(KeyState state) {
        keys.computeIfPresent(state.key, (k, existing) -> {
            synchronized (existing) {
                return existing == state && existing.users == 0 ? null : existing;
            }
        });
    }
}
