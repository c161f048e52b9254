package io.locked.internal;

import io.locked.internal.base.TimeSource;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** The system's monotonic time, which a test can move forward to make leases run out without waiting. */
final class ShiftableTime implements TimeSource {
    private final AtomicLong offset = new AtomicLong();

    /** Moves this time forward by the given amount. */
    void advance(long amount, TimeUnit unit) {
        offset.addAndGet(unit.toNanos(amount));
    }

    @Override
    public long nanoTime() {
        return System.nanoTime() + offset.get();
    }

    @Override
    public Clock wallClock() {
        return Clock.systemUTC();
    }

    @Override
    public void sleepNanos(long nanos) throws InterruptedException {
        if (nanos > 0) {
            TimeUnit.NANOSECONDS.sleep(nanos);
        }
    }
}
