package io.locked.internal.exclusive;

import io.locked.internal.base.TimeSource;
import io.locked.internal.exclusive.HandOvers.Handed;
import io.locked.internal.exclusive.HandOvers.Wish;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * JVM-local queueing per key: threads of one lock manager that want the same key wait here, in
 * arrival order, and only the thread whose turn it is competes at the database or holds the row.
 * N local waiters then cost one database waiter instead of N. When a turn ends, the next waiter
 * goes to the database at once; a holder may even pass its live lease, or its row lock with its
 * transaction, straight to the next waiter ({@link Turn#reserveSuccessor}), one statement instead of a
 * release and a take.
 */
public final class KeyTurns {
    /**
     * How many pessimistic turns of one key may be out at once where the store cannot pass a row lock on
     * ({@link io.locked.spi.LockRepository#handsOverPessimisticHolds()}): the holder and one waiter queued at
     * the database, whose statement the database grants the moment the holder commits (with one, each local
     * hand-over would wait for a whole lock statement after the commit). Where the store passes row locks on,
     * one: the next local thread waits here for the row, not at the database behind every hand-over of a run.
     */
    public static final int PESSIMISTIC_TURNS = 2;
    private enum State { WAITING, RESERVED, GRANTED, CANCELLED }
    private final ConcurrentHashMap<String, Queue> queues = new ConcurrentHashMap<>();
    private final TimeSource time;
    /** Whether the store passes row locks on: then one pessimistic turn goes at a time, else {@link #PESSIMISTIC_TURNS}. */
    private final BooleanSupplier storePassesRows;
    /** The longest run of row hand-overs; zero: rows are not passed on. */
    private volatile long rowRunNanos = HandOvers.ROW_RUN_NANOS;
    /** A bug seeded for the model checking's negative controls only (KeyTurnsModelTest); null everywhere else. */
    private final SeededBug seededBug;

    /**
     * The bugs the model checking must find: {@code OVERTAKING} admits an optimistic turn beside another;
     * {@code FORGETFUL} ends a turn without handing the key to its waiters.
     */
    enum SeededBug { OVERTAKING, FORGETFUL }

    /** @param storePassesRows whether the store passes row locks on, asked at the first turn */
    public KeyTurns(TimeSource time, BooleanSupplier storePassesRows) {
        this(time, storePassesRows, null);
    }

    /** @param seededBug the bug a negative control seeds, or null */
    KeyTurns(TimeSource time, BooleanSupplier storePassesRows, SeededBug seededBug) {
        this.time = time;
        this.storePassesRows = storePassesRows;
        this.seededBug = seededBug;
    }

    /** One key's queue; guarded by its own monitor. Dropped from the map when nobody uses it. */
    private static final class Queue {
        final ArrayDeque<Waiter> waiting = new ArrayDeque<>();
        int active;
        int activeOptimistic;
        int users;
        // since when the turn has passed from a local thread straight to a waiting local thread; 0: not
        long streakSince;
        // how long this run may last, drawn when it began
        long streakNanos;
    }

    // how long the run may last: a lease's or a row lock's (HandOvers.runBound)
    private void beginStreak(Queue queue, long now, boolean optimistic) {
        queue.streakSince = now;
        queue.streakNanos = HandOvers.runBound(time, optimistic ? HandOvers.LEASE_RUN_NANOS : rowRunNanos);
    }

    private static final class Waiter {
        final Thread thread = Thread.currentThread();
        final Wish wish;
        final boolean optimistic;
        volatile State state = State.WAITING;
        volatile Handed handed;

        Waiter(Wish wish) {
            this.wish = wish;
            this.optimistic = wish != null && wish.optimistic();
        }
    }

    /** @return whether rows are passed on: the manager's run bound is not zero, and the store's answer, asked once */
    boolean rowsHandedOver() {
        return rowRunNanos > 0 && storePassesRows.getAsBoolean();
    }

    /** @param nanos the longest run of row hand-overs, zero or more: set before the first turn */
    void rowRunsFor(long nanos) {
        rowRunNanos = nanos;
    }

    // an optimistic turn goes alone; a pessimistic one may follow another pessimistic one to the database
    private boolean admits(Queue queue, boolean optimistic) {
        return queue.active == 0
                || !optimistic && queue.activeOptimistic == 0 && queue.active < (rowsHandedOver() ? 1 : PESSIMISTIC_TURNS)
                || seededBug == SeededBug.OVERTAKING && queue.active < 2;
    }

    private static void activate(Queue queue, boolean optimistic) {
        queue.active++;
        if (optimistic) {
            queue.activeOptimistic++;
        }
    }

    /** A thread's turn at one key: ended once, when its acquisition failed or released its row. */
    public final class Turn {
        private final String key;
        private final Queue queue;
        private final boolean optimistic;
        private final boolean yieldFirst;
        private final Handed handed;
        private final AtomicBoolean ended = new AtomicBoolean();
        private Waiter successor;

        private Turn(String key, Queue queue, boolean optimistic, boolean yieldFirst, Handed handed) {
            this.key = key;
            this.queue = queue;
            this.optimistic = optimistic;
            this.yieldFirst = yieldFirst;
            this.handed = handed;
        }

        /** @return whether this JVM has passed the key around long enough to leave other JVMs a gap first */
        public boolean yieldFirst() {
            return yieldFirst;
        }

        /** @return the lease or row lock the previous holder handed over with the turn, or null */
        public Handed handed() {
            return handed;
        }

        /**
         * Reserves the next waiter for a hand-over, if it wants a hold like this one (a lease of this
         * length, or a row lock) and the key has not been passed around locally for too long.
         *
         * @param leaseLength the lease length handed over; null for a row lock
         * @return what the reserved waiter wants, or null: release the row instead
         */
        Wish reserveSuccessor(Duration leaseLength) {
            synchronized (queue) {
                Waiter head = queue.waiting.peek();
                // a run of hand-overs is bounded from the last take at the database, where this JVM waited like any other
                if (ended.get() || successor != null || head == null || head.wish == null
                        || !Objects.equals(head.wish.length(), leaseLength)
                        || handed != null && queue.streakSince != 0
                        && time.nanoTime() - queue.streakSince >= queue.streakNanos) {
                    return null;
                }
                queue.waiting.poll();
                head.state = State.RESERVED;
                successor = head;
                return head.wish;
            }
        }

        /** The hold was handed over to the reserved successor; it gets it with the turn at {@link #end()}. */
        void handedOver(Handed hold) {
            successor.handed = hold;
        }

        /** Gives the turn to the reserved successor, or to as many of the longest waiters as may go, or frees it. */
        public void end() {
            if (!ended.compareAndSet(false, true)) {
                return;
            }
            java.util.List<Waiter> granted = new java.util.ArrayList<>(1);
            synchronized (queue) {
                queue.active--;
                if (optimistic) {
                    queue.activeOptimistic--;
                }
                if (successor != null) {
                    grant(successor, granted);
                }
                for (Waiter head = queue.waiting.peek(); head != null && admits(queue, head.optimistic)
                        && seededBug != SeededBug.FORGETFUL; head = queue.waiting.peek()) {
                    grant(queue.waiting.poll(), granted);
                }
                if (queue.active == 0) {
                    queue.streakSince = 0;
                } else if (!granted.isEmpty() && (queue.streakSince == 0 || handed == null)) {
                    beginStreak(queue, time.nanoTime(), optimistic);
                }
            }
            granted.forEach(waiter -> LockSupport.unpark(waiter.thread));
            leave(key, queue);
        }

        private void grant(Waiter waiter, java.util.List<Waiter> granted) {
            activate(queue, waiter.optimistic);
            waiter.state = State.GRANTED;
            granted.add(waiter);
        }
    }

    /**
     * Waits for the key's turn.
     *
     * @param timeoutNanos how long to wait; zero or less: only if it may go at once (nobody in this JVM
     *                     waits for the key, and none or, for a pessimistic turn, fewer other pessimistic
     *                     turns than may go together are out)
     * @param wish         what this thread would take as a hold handed over; null: pessimistic, taking none
     * @return the turn, or null if the wait ran out
     * @throws InterruptedException if interrupted while waiting in the queue; once the turn was
     *         granted or reserved, the thread keeps it and its interrupt flag is set again
     */
    public Turn await(String key, long timeoutNanos, Wish wish) throws InterruptedException {
        rowsHandedOver(); // asked of the store here, at the first turn, not under a queue's monitor
        Queue queue = queues.compute(key, (k, existing) -> {
            Queue used = existing != null ? existing : new Queue();
            used.users++;
            return used;
        });
        boolean optimistic = wish != null && wish.optimistic();
        Waiter waiter;
        synchronized (queue) {
            if (queue.waiting.isEmpty() && admits(queue, optimistic)) {
                activate(queue, optimistic);
                return new Turn(key, queue, optimistic, false, null);
            }
            if (timeoutNanos <= 0) {
                waiter = null;
            } else {
                waiter = new Waiter(wish);
                queue.waiting.add(waiter);
            }
        }
        if (waiter == null) {
            leave(key, queue);
            return null;
        }
        return waitForTurn(key, queue, waiter, time.nanoTime() + timeoutNanos);
    }

    private Turn waitForTurn(String key, Queue queue, Waiter waiter, long deadline) throws InterruptedException {
        boolean interrupted = false;
        while (waiter.state != State.GRANTED) {
            long remaining = deadline - time.nanoTime();
            if (waiter.state == State.WAITING && (remaining <= 0 || interrupted)) {
                synchronized (queue) {
                    if (waiter.state == State.WAITING) {
                        queue.waiting.remove(waiter);
                        waiter.state = State.CANCELLED;
                    }
                }
                if (waiter.state == State.CANCELLED) {
                    leave(key, queue);
                    if (interrupted) {
                        throw new InterruptedException();
                    }
                    return null;
                }
                continue;
            }
            // a reserved waiter waits for the hand-over, one bounded statement, past its own deadline
            time.parkNanos(this, waiter.state == State.WAITING ? remaining : TimeUnit.MILLISECONDS.toNanos(1));
            interrupted |= Thread.interrupted();
        }
        if (interrupted) {
            Thread.currentThread().interrupt(); // granted anyway: the acquisition goes on, the flag stays
        }
        boolean yieldFirst;
        synchronized (queue) {
            yieldFirst = waiter.handed == null && longStreak(queue, waiter.optimistic);
        }
        return new Turn(key, queue, waiter.optimistic, yieldFirst, waiter.handed);
    }

    private boolean longStreak(Queue queue, boolean optimistic) {
        long now = time.nanoTime();
        if (queue.streakSince == 0 || now - queue.streakSince < queue.streakNanos) {
            return false;
        }
        beginStreak(queue, now, optimistic);
        return true;
    }

    /** @return how many keys have a queue: those held, queued for or being asked for right now */
    int keysInUse() {
        return queues.size();
    }

    private void leave(String key, Queue queue) {
        queues.computeIfPresent(key, (k, existing) -> existing == queue && --existing.users == 0 ? null : existing);
    }
}
