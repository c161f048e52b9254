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
    private final ConcurrentHashMap<String, Queue> queues = new ConcurrentHashMap<>();

    /** One key's queue: a fair permit, and how many threads use it (it is dropped at zero). */
    private static final class Queue {
        final Semaphore permit = new Semaphore(1, true);
        int users;
    }

    /** A thread's turn at one key: ended once, when its acquisition failed or released its row. */
    final class Turn {
        private final String key;
        private final Queue queue;
        private final AtomicBoolean ended = new AtomicBoolean();

        private Turn(String key, Queue queue) {
            this.key = key;
            this.queue = queue;
        }

        void end() {
            if (ended.compareAndSet(false, true)) {
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
        return got ? new Turn(key, queue) : null;
    }

    private void leave(String key, Queue queue) {
        queues.computeIfPresent(key, (k, existing) -> existing == queue && --existing.users == 0 ? null : existing);
    }
}
