package io.locked.it.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Every event of every worker of a run, in the order they were read, and a way to wait for a
 * condition on the events since a moment, up to the run's patience (past which it is a hang).
 */
final class EventLog {
    private final List<WorkerEvent> events = new ArrayList<>();
    private final Duration patience;

    /**
     * A moment of the run: the events after it, and the time it was taken.
     *
     * @param index events read before it
     * @param nanos {@link System#nanoTime()} when taken
     */
    record Mark(int index, long nanos) {
    }

    EventLog(Duration patience) {
        this.patience = patience;
    }

    Consumer<String> sink(int worker) {
        return line -> add(WorkerEvent.parse(worker, line));
    }

    private synchronized void add(WorkerEvent event) {
        events.add(event);
        notifyAll();
    }

    /** @return now; taken after counting the events, so no event of a later moment is before it */
    synchronized Mark mark() {
        return new Mark(events.size(), System.nanoTime());
    }

    synchronized List<WorkerEvent> all() {
        return new ArrayList<>(events);
    }

    /**
     * Waits until {@code found} answers non-null for the events read since the mark.
     *
     * @param what what is awaited, for the failure message
     * @return what {@code found} answered
     * @throws AssertionError if the run's patience ran out first: something hangs
     */
    <T> T await(String what, Mark since, Function<List<WorkerEvent>, T> found) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            List<WorkerEvent> recent;
            synchronized (this) {
                recent = new ArrayList<>(events.subList(since.index(), events.size()));
            }
            T answer = found.apply(recent);
            if (answer != null) {
                return answer;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                List<WorkerEvent> tail = recent.subList(Math.max(0, recent.size() - 20), recent.size());
                throw new AssertionError("no " + what + " within " + patience + " (something hangs); last events: " + tail);
            }
            synchronized (this) {
                if (events.size() == since.index() + recent.size()) {
                    wait(Math.max(1, Math.min(left / 1_000_000, 100)));
                }
            }
        }
    }
}
