package io.locked.simulation;

import io.locked.internal.base.TimeSource;
import java.time.Clock;

/**
 * One simulated JVM's view of the simulation's {@link VirtualClock}: the same time, parks and spreads, and the
 * threads its core starts of its own (a leadership campaign) named for the JVM, so that they sleep through its
 * pauses as the rest of it does.
 */
final class JvmTime implements TimeSource {
    private final VirtualClock clock;
    private final String jvm;

    JvmTime(VirtualClock clock, String jvm) {
        this.clock = clock;
        this.jvm = jvm;
    }

    @Override
    public Thread startThread(String name, Runnable body) {
        // named as the simulation's other threads, so that the trace names it the same in every process
        return clock.startThread("simulated-" + jvm + "-" + name, body);
    }

    @Override
    public long nanoTime() {
        return clock.nanoTime();
    }

    @Override
    public Clock wallClock() {
        return clock.wallClock();
    }

    @Override
    public void sleepNanos(long nanos) throws InterruptedException {
        clock.sleepNanos(nanos);
    }

    @Override
    public void parkNanos(Object blocker, long nanos) {
        clock.parkNanos(blocker, nanos);
    }

    @Override
    public int spread(int bound) {
        return clock.spread(bound);
    }

    @Override
    public long spread(long origin, long bound) {
        return clock.spread(origin, bound);
    }
}
