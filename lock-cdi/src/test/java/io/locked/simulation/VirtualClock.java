package io.locked.simulation;

import io.locked.internal.base.TimeSource;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Random;

/**
 * The simulation's time: every JVM's monotonic clock, moved only by the simulation, and the core's
 * random spreads, drawn from the seed. The core parks and sleeps in virtual time on the threads of the
 * simulation's {@link World}; where calls never wait there is none, and a park or sleep fails the run.
 */
final class VirtualClock implements TimeSource {
    private static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");
    /** Written by whichever thread runs (one at a time, handed on through futures); read by all. */
    private volatile long nowNanos = 1_000_000_000L;
    private final Random random;
    /** Where waiting threads run; null where every call is a try and nothing may wait. */
    private volatile World world;

    /** @param random the seed's: where searches of slots start, and back-offs' jitter */
    VirtualClock(Random random) {
        this.random = random;
    }

    void waitIn(World waits) {
        this.world = waits;
    }

    @Override
    public long nanoTime() {
        return nowNanos;
    }

    void advance(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("a monotonic clock does not go back: " + nanos);
        }
        nowNanos += nanos;
    }

    void advanceTo(long nanos) {
        if (nanos > nowNanos) {
            nowNanos = nanos;
        }
    }

    @Override
    public Clock wallClock() {
        return Clock.fixed(EPOCH.plusNanos(nowNanos), ZoneOffset.UTC);
    }

    private World worldOfCaller(long nanos) {
        World waits = world;
        if (waits == null || !waits.owns(Thread.currentThread())) {
            throw new IllegalStateException("the core waited " + nanos + " ns on " + Thread.currentThread()
                    + " in the simulation, outside its world of waiting threads");
        }
        return waits;
    }

    /** A thread of the core's own runs in the world, where every wait of the core's is simulated; none where calls never wait. */
    @Override
    public Thread startThread(String name, Runnable body) {
        World waits = world;
        if (waits == null) {
            throw new IllegalStateException("a thread of the core's own (" + name + ") waits, which the simulation"
                    + " runs only where calls wait");
        }
        return waits.start(name, body);
    }

    @Override
    public void parkNanos(Object blocker, long nanos) {
        worldOfCaller(nanos).park(blocker, nanos);
    }

    @Override
    public void sleepNanos(long nanos) throws InterruptedException {
        worldOfCaller(nanos).parkUntil(nowNanos + nanos, this);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
    }

    @Override
    public int spread(int bound) {
        synchronized (random) {
            return random.nextInt(bound);
        }
    }

    @Override
    public long spread(long origin, long bound) {
        synchronized (random) {
            return origin + (long) (random.nextDouble() * (bound - origin));
        }
    }
}
