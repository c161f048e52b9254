package io.locked.simulation;

import java.lang.reflect.Constructor;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToLongFunction;

/**
 * Where simulated threads that wait run: virtual threads on one carrier, the simulation's own thread,
 * scheduled in the order they became ready, and parked in virtual time. A thread runs until it parks;
 * nothing preempts it, so a run is the same every time, as long as no thread parks while it holds a
 * monitor another wants (a thread that blocks so is reported: its wake-up would come from the JDK's own
 * threads, at a time the seed does not choose).
 *
 * <p>Virtual threads with a scheduler of one's own take a constructor of the JDK's that is not public
 * ({@code ThreadBuilders.VirtualThreadBuilder(Executor)}, in Java 21 to 25): {@link #available()} says
 * whether this JDK has it.
 */
final class World implements Executor {
    private static final Optional<Constructor<?>> BUILDER = builder();
    private final VirtualClock clock;
    private final ArrayDeque<Runnable> ready = new ArrayDeque<>();
    private final PriorityQueue<Wake> wakes = new PriorityQueue<>();
    private final List<Thread> threads = new ArrayList<>();
    /** When a thread's wake-up may come at the earliest: a paused JVM's threads sleep through its pause. */
    private final ToLongFunction<Thread> pausedUntil;
    private long scheduled;

    private record Wake(long atNanos, long order, Thread thread) implements Comparable<Wake> {
        @Override
        public int compareTo(Wake other) {
            int byTime = Long.compare(atNanos, other.atNanos);
            return byTime != 0 ? byTime : Long.compare(order, other.order);
        }
    }

    World(VirtualClock clock, ToLongFunction<Thread> pausedUntil) {
        this.clock = clock;
        this.pausedUntil = pausedUntil;
    }

    private static Optional<Constructor<?>> builder() {
        try {
            Constructor<?> constructor = Class.forName("java.lang.ThreadBuilders$VirtualThreadBuilder")
                    .getDeclaredConstructor(Executor.class);
            constructor.setAccessible(true);
            return Optional.of(constructor);
        } catch (ReflectiveOperationException | RuntimeException absent) {
            return Optional.empty();
        }
    }

    /** @return why waits cannot be simulated on this JDK, or empty when they can */
    static Optional<String> unavailable() {
        if (Runtime.version().feature() < 21 || BUILDER.isEmpty()) {
            return Optional.of("virtual threads on a scheduler of the simulation's own need Java 21 or later and"
                    + " java.lang opened to the tests (Java " + Runtime.version().feature() + " here)");
        }
        return Optional.empty();
    }

    /** Starts a thread of the world; it runs when the world next runs. */
    Thread start(String name, Runnable body) {
        try {
            // Thread.Builder through reflection: the project compiles for Java 17, which has none
            Object builder = BUILDER.orElseThrow().newInstance(this);
            Class<?> builderType = Class.forName("java.lang.Thread$Builder");
            builderType.getMethod("name", String.class).invoke(builder, name);
            Thread thread = (Thread) builderType.getMethod("unstarted", Runnable.class).invoke(builder, body);
            synchronized (this) {
                threads.add(thread);
            }
            thread.start();
            return thread;
        } catch (ReflectiveOperationException failed) {
            throw new IllegalStateException(failed);
        }
    }

    /** The JDK hands each thread that became ready here: it runs when the world runs. */
    @Override
    public synchronized void execute(Runnable continuation) {
        ready.addLast(continuation);
    }

    /** Runs every ready thread, and those they make ready, until all are parked. */
    void runUntilQuiet() {
        while (true) {
            Runnable next;
            synchronized (this) {
                next = ready.pollFirst();
            }
            if (next == null) {
                break;
            }
            next.run();
        }
        List<Thread> blocked;
        synchronized (this) {
            threads.removeIf(thread -> thread.getState() == Thread.State.TERMINATED);
            blocked = threads.stream().filter(thread -> thread.getState() == Thread.State.BLOCKED).toList();
        }
        if (!blocked.isEmpty()) {
            StringBuilder stacks = new StringBuilder();
            List<Thread> all;
            synchronized (this) {
                all = List.copyOf(threads);
            }
            for (Thread thread : all) {
                stacks.append('\n').append(thread).append(' ').append(thread.getState());
                for (StackTraceElement frame : thread.getStackTrace()) {
                    stacks.append("\n    at ").append(frame);
                }
            }
            throw new IllegalStateException("threads wait for a monitor that a parked thread holds, which the"
                    + " simulation cannot order: " + blocked + stacks);
        }
    }

    /** @return whether the calling thread is one of the world's */
    boolean owns(Thread thread) {
        synchronized (this) {
            return threads.contains(thread);
        }
    }

    /** Parks the calling thread of the world for up to {@code nanos} of virtual time, or until it is unparked. */
    void park(Object blocker, long nanos) {
        Thread me = Thread.currentThread();
        synchronized (this) {
            wakes.add(new Wake(clock.nanoTime() + Math.max(0, nanos), scheduled++, me));
        }
        LockSupport.park(blocker);
    }

    /**
     * Parks the calling thread of the world until the virtual clock reaches {@code untilNanos}: unparks before
     * then (a hand-over meant for another wait, a spurious one) park it again. An interrupt ends the wait early.
     */
    void parkUntil(long untilNanos, Object blocker) {
        while (clock.nanoTime() - untilNanos < 0 && !Thread.currentThread().isInterrupted()) {
            park(blocker, untilNanos - clock.nanoTime());
        }
    }

    /** @return when the next parked thread's time comes, or {@link Long#MAX_VALUE} */
    synchronized long nextWake() {
        long next = Long.MAX_VALUE;
        for (Wake wake : wakes) {
            next = Math.min(next, Math.max(wake.atNanos(), pausedUntil.applyAsLong(wake.thread())));
        }
        return next;
    }

    /** Unparks the threads whose time has come (a paused JVM's wait for its pause to end). */
    void wakeDue() {
        while (true) {
            Wake due;
            synchronized (this) {
                due = wakes.peek();
                if (due == null || due.atNanos() > clock.nanoTime()) {
                    return;
                }
                wakes.poll();
                long paused = pausedUntil.applyAsLong(due.thread());
                if (paused > clock.nanoTime()) {
                    wakes.add(new Wake(paused, scheduled++, due.thread()));
                    continue;
                }
            }
            LockSupport.unpark(due.thread());
        }
    }
}
