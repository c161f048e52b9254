package io.locked.simulation;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One simulated JVM's watchdog scheduler: tasks wait in virtual time and run only when the
 * simulation runs them, in the order of their due time and then of their scheduling, so a run is
 * the same every time. Each task runs on the simulation's thread.
 */
final class VirtualScheduler extends AbstractExecutorService implements ScheduledExecutorService {
    private final VirtualClock clock;
    private final PriorityQueue<Task> queue = new PriorityQueue<>();
    private long scheduled;
    private boolean shutdown;

    VirtualScheduler(VirtualClock clock) {
        this.clock = clock;
    }

    final class Task implements ScheduledFuture<Object> {
        private final Runnable body;
        /** Positive: at a fixed rate; negative: with a fixed delay; zero: once. */
        private final long periodNanos;
        private long dueNanos;
        private long order;
        private boolean cancelled;
        private boolean done;

        Task(Runnable body, long dueNanos, long periodNanos) {
            this.body = body;
            this.dueNanos = dueNanos;
            this.periodNanos = periodNanos;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(dueNanos - clock.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            Task task = (Task) other;
            int byDue = Long.compare(dueNanos, task.dueNanos);
            return byDue != 0 ? byDue : Long.compare(order, task.order);
        }

        @Override
        public boolean cancel(boolean mayInterrupt) {
            synchronized (VirtualScheduler.this) {
                if (done || cancelled) {
                    return false;
                }
                cancelled = true;
                queue.remove(this);
                return true;
            }
        }

        @Override
        public boolean isCancelled() {
            synchronized (VirtualScheduler.this) {
                return cancelled;
            }
        }

        @Override
        public boolean isDone() {
            synchronized (VirtualScheduler.this) {
                return done || cancelled;
            }
        }

        @Override
        public Object get() {
            throw new UnsupportedOperationException("nothing in the core waits for a scheduled task");
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            return get();
        }
    }

    private synchronized Task enqueue(Runnable body, long delayNanos, long periodNanos) {
        if (shutdown) {
            throw new RejectedExecutionException("the watchdog was closed");
        }
        Task task = new Task(body, clock.nanoTime() + Math.max(0, delayNanos), periodNanos);
        task.order = scheduled++;
        queue.add(task);
        return task;
    }

    /** @return when the next task is due, or {@link Long#MAX_VALUE} if none is */
    synchronized long nextDue() {
        Task head = queue.peek();
        return head == null ? Long.MAX_VALUE : head.dueNanos;
    }

    /**
     * Runs the next task if it is due by the clock.
     *
     * @return whether one ran
     */
    boolean runNextDue() {
        Task task;
        synchronized (this) {
            task = queue.peek();
            if (task == null || task.dueNanos > clock.nanoTime()) {
                return false;
            }
            queue.poll();
        }
        task.body.run();
        synchronized (this) {
            if (task.periodNanos == 0 || task.cancelled || shutdown) {
                task.done = true;
                return true;
            }
            task.dueNanos = task.periodNanos > 0 ? task.dueNanos + task.periodNanos : clock.nanoTime() - task.periodNanos;
            task.order = scheduled++;
            queue.add(task);
        }
        return true;
    }

    /** @return how many tasks wait, periodic ones included */
    synchronized int waiting() {
        return queue.size();
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return enqueue(command, unit.toNanos(delay), 0);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("the core schedules no callables");
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return enqueue(command, unit.toNanos(initialDelay), Math.max(1, unit.toNanos(period)));
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        return enqueue(command, unit.toNanos(initialDelay), -Math.max(1, unit.toNanos(delay)));
    }

    @Override
    public void execute(Runnable command) {
        enqueue(command, 0, 0);
    }

    @Override
    public synchronized void shutdown() {
        shutdown = true;
    }

    @Override
    public synchronized List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> left = new ArrayList<>();
        for (Task task : queue) {
            left.add(task.body);
        }
        queue.clear();
        return left;
    }

    @Override
    public synchronized boolean isShutdown() {
        return shutdown;
    }

    @Override
    public synchronized boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return isTerminated();
    }
}
