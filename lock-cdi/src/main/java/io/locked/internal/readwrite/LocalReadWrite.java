package io.locked.internal.readwrite;

import io.locked.api.LockException;
import io.locked.internal.base.KeepTimer;
import io.locked.internal.base.TimeSource;
import io.locked.internal.base.Waiters;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * What one lock manager knows of each key's read/write lock in this JVM: its reader groups
 * ({@link ReaderGroup}), its writers, and who waits. Readers and writers of one JVM wait here for each
 * other, woken by a release, instead of polling the table; only waits for other JVMs poll. Writers go
 * first: while a writer of this JVM waits or writes, no reader joins or forms a group.
 *
 * <p>An {@code OPTIMISTIC} group whose last reader leaves while a writer of this JVM holds the writer row
 * keeps its slot (it is parked): that writer does not wait for it, since nobody can join it while the
 * writer is there, and the readers that come after the write join it again without a statement. A
 * {@code PESSIMISTIC} group is never parked for a writer: its slot's transaction shares the key's shared
 * row, which the writer must lock exclusively before it enters. A parked group is
 * released as soon as no reader of this JVM comes for it: when its writer leaves and no reader is
 * arriving, or when the last arriving reader gave up. It is never parked while a writer of this JVM
 * only waits for the writer row: a writer of another JVM may hold that row and wait for the slot.
 *
 * <p>An {@code OPTIMISTIC} group that nobody keeps any more stays held a moment ({@link ReaderSlotKeep}) for
 * this JVM's next reader, which joins it without a statement, or next writer, which parks it if it gets
 * the writer row meanwhile: a thread that reads, then writes, then reads again sends the statements of a
 * write alone. A writer of another JVM waits that moment more at most; a timer ends it.
 */
final class LocalReadWrite {
    /**
     * How long a close waits for the releases of groups under way: a release is one statement, so this is
     * reached only when the store hangs, and then the slot's lease ends it.
     */
    static final Duration RELEASES_AT_CLOSE = Duration.ofSeconds(5);
    private final ConcurrentHashMap<String, KeyState> keys = new ConcurrentHashMap<>();
    /** Threads closing the lock manager, which wait for the releases under way: each release's end wakes them. */
    private final Waiters closing;
    final TimeSource time;
    /** The moment an emptied {@code OPTIMISTIC} group stays held for this JVM's next reader or writer. */
    final ReaderSlotKeep keep;
    /** Set when the lock manager closes: no group is kept without a reader from then on. */
    volatile boolean closed;
    /** A bug the model checking must find ({@code ReadWriteModelTest}); null in use. */
    final ReadWriteSeededBug seededBug;

    LocalReadWrite(TimeSource time, KeepTimer timer) {
        this(time, timer, null);
    }

    LocalReadWrite(TimeSource time, KeepTimer timer, ReadWriteSeededBug seededBug) {
        this.time = time;
        this.closing = new Waiters(time);
        this.keep = new ReaderSlotKeep(timer);
        this.seededBug = seededBug;
    }

    /**
     * The slots a key's groups of this JVM hold, as a writer of this JVM sees them: it need not wait for
     * those without a reader once it made sure each is still its group's ({@code WriteSide}), and waits for
     * those with readers here, without a look at the table.
     */
    record OwnSlots(Map<String, ReaderGroup> withoutReaders, Set<String> withReaders) {
    }

    /** @return how many keys have a state here */
    int keysInUse() {
        return keys.size();
    }

    /** @return whether this thread reads the key in one of its groups of this JVM */
    boolean readsNow(String key) {
        KeyState state = keys.get(key);
        if (state == null) {
            return false;
        }
        synchronized (state) {
            return state.readBy(Thread.currentThread()) != null;
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

    /**
     * Decides under the key's monitor which group, if any, no longer has a reason to keep its slot, and
     * releases it outside the monitor (never called under it).
     *
     * @return whether a group was released
     */
    boolean releaseIfUnwanted(KeyState state, Function<KeyState, ReaderGroup> decision) {
        ReaderGroup unwanted;
        synchronized (state) {
            unwanted = decision.apply(state);
        }
        release(state, unwanted);
        return unwanted != null;
    }

    /** The sweep of the keeps found a group's moment due: it ends the keep, or waits on where it began again meanwhile. */
    void keepEnded(KeyState state, ReaderGroup kept) {
        long left;
        synchronized (state) {
            left = keep.timerFired(kept);
        }
        if (left > 0 && !keep.waitsOn(kept, left, () -> keepEnded(state, kept))) {
            left = 0; // the lock manager closes: nothing is kept
            synchronized (state) {
                keep.timerFired(kept);
            }
        }
        if (left <= 0 && seededBug != ReadWriteSeededBug.KEEP_NEVER_RELEASED) {
            // a group that is no longer current has no reader to come for it
            releaseIfUnwanted(state, current -> current.group == kept ? current.unwantedGroup() : current.releasedIfEmpty(kept));
        }
    }

    /** How long an emptied {@code OPTIMISTIC} group stays held for this JVM's next reader or writer. */
    void keepFor(Duration moment) {
        keep.keepFor(moment);
    }

    /**
     * The lock manager closes: no group is kept from now on, those kept now are released, and releases
     * already under way end before it returns, {@link #RELEASES_AT_CLOSE} at most (never called under a
     * state's monitor). The close goes on to stop the lease watchdog, which interrupts its threads, and the
     * end of a keep releases its group on one of them: an interrupted release can fail (Derby's driver, a
     * pool waiting for a connection), and its slot would stay held until its lease ran out.
     */
    void close() {
        closed = true;
        keep.close();
        for (KeyState state : keys.values()) {
            List<ReaderGroup> empty;
            synchronized (state) {
                empty = state.emptyGroups();
            }
            empty.forEach(group -> release(state, group));
        }
        // parked on the manager's time, so that the simulation runs it in virtual time
        closing.awaitUntil(() -> !releasesUnderWay(), time.nanoTime() + RELEASES_AT_CLOSE.toNanos());
    }

    private boolean releasesUnderWay() {
        for (KeyState state : keys.values()) {
            synchronized (state) {
                if (state.releasesUnderWay()) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Releases a group's slot that no reader holds any more (never called under the state's monitor).
     * A loss found by that release has no reader to tell: the slot's hold logged and counted it.
     */
    void release(KeyState state, ReaderGroup group) {
        if (group == null) {
            return;
        }
        try {
            group.slot.close();
        } catch (LockException lostOrStoreDown) {
            // logged by the slot's hold; the next group takes a slot of its own
        } finally {
            ended(state, group);
        }
    }

    /** A group's slot was released ({@link KeyState#releasedIfEmpty} handed it out, to release). */
    void ended(KeyState state, ReaderGroup released) {
        synchronized (state) {
            state.releaseEnded(released);
        }
        forgetIfUnused(state);
        closing.changed();
    }

    /** A writer of this JVM left: whoever waits on the key here looks again. */
    void ended(KeyState state) {
        synchronized (state) {
            state.changed();
        }
        forgetIfUnused(state);
    }

    /** Drops the state when nothing uses it (never called under its monitor). */
    private void forgetIfUnused(KeyState state) {
        keys.computeIfPresent(state.key, (k, existing) -> {
            synchronized (existing) {
                return existing == state && existing.users == 0 ? null : existing;
            }
        });
    }
}
