package io.locked.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * JVM-local queueing per key: threads of one lock manager that want the same key wait here, in
 * arrival order, and only the thread whose turn it is competes at the database or holds the row.
 * N local waiters then cost one database waiter instead of N, and a release lets the next local
 * waiter go straight to the database instead of finding out by polling.
 */
final class KeyTurns {
    /**
     * How long one JVM may pass a key from thread to thread before it lets other JVMs in. Another
     * JVM's optimistic waiter polls (at most every 50 ms of backoff) and would otherwise find the row
     * free only in the instant between a local release and the next local take. Pessimistic waiters
     * of other JVMs queue inside the database ahead of the next local thread, and need no such gap.
     */
    static final long HAND_OVER_STREAK_NANOS = TimeUnit.SECONDS.toNanos(1);
    private final ConcurrentHashMap<String, Queue> queues = new ConcurrentHashMap<>();
    private final TimeSource time;

    KeyTurns(TimeSource time) {
        this.time = time;
    }

    /** One key's queue: a fair permit, how many threads use it (it is dropped at zero), and its streak. */
    private static final class Queue {
        final Semaphore permit = new Semaphore(1, true);
        int users;
        // since when turns have passed from a local thread straight to a waiting local thread; 0: none
        long streakSince;
    }

    /** A thread's turn at one key: ended once, when its acquisition failed or released its row. */
    final class Turn {
        private final String key;
        private final Queue queue;
        private final boolean yieldFirst;
        private final AtomicBoolean ended = new AtomicBoolean();

        private Turn(String key, Queue queue, boolean yieldFirst) {
            this.key = key;
            this.queue = queue;
            this.yieldFirst = yieldFirst;
        }

        /** @return whether this JVM has passed the key around long enough to leave other JVMs a gap first */
        boolean yieldFirst() {
            return yieldFirst;
        }

        void end() {
            if (ended.compareAndSet(false, true)) {
                synchronized (queue) {
                    if (!queue.permit.hasQueuedThreads()) {
                        queue.streakSince = 0;
                    } else if (queue.streakSince == 0) {
                        queue.streakSince = time.nanoTime();
                    }
                }
                queue.permit.release();
                leave(key, queue);
            }
        }
    }

    /**
     * Waits for the key's turn.
     *
     * @param timeoutNanos how long to wait; zero or less: only if nobody in this JVM has it
     * @return the turn, or null if the wait ran out
     * @throws InterruptedException if interrupted while waiting
     */
    Turn await(String key, long timeoutNanos) throws InterruptedException {
        Queue queue = queues.compute(key, (k, existing) -> {
            Queue used = existing != null ? existing : new Queue();
            used.users++;
            return used;
        });
        boolean got = false;
        try {
            got = timeoutNanos <= 0
                    ? queue.permit.tryAcquire()
                    : queue.permit.tryAcquire(timeoutNanos, TimeUnit.NANOSECONDS);
        } finally {
            if (!got) {
                leave(key, queue);
            }
        }
        return got ? new Turn(key, queue, longStreak(queue)) : null;
    }

    private boolean longStreak(Queue queue) {
        synchronized (queue) {
            long now = time.nanoTime();
            if (queue.streakSince == 0 || now - queue.streakSince < HAND_OVER_STREAK_NANOS) {
                return false;
            }
            queue.streakSince = now;
            return true;
        }
    }

    private void leave(String key, Queue queue) {
        queues.computeIfPresent(key, (k, existing) -> existing == queue && --existing.users == 0 ? null : existing);
    }
}
