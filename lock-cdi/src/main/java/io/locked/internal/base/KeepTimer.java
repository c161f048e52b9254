package io.locked.internal.base;

import java.util.function.LongSupplier;

/** Runs a task once, later, off the caller's thread: the end of a keep ({@link KeepSweep}). */
@FunctionalInterface
public interface KeepTimer {
    /** @return false, nothing scheduled, when the timer no longer runs */
    boolean once(long nanos, Runnable task);

    /** @return the timer's own clock, on which a keep's end is measured: the system's, unless it runs in virtual time */
    default long nanoTime() {
        return System.nanoTime();
    }

    /**
     * @param once  how a task is scheduled
     * @param clock the scheduler's clock
     * @return a timer that schedules so and measures on that clock
     */
    static KeepTimer of(KeepTimer once, LongSupplier clock) {
        return new KeepTimer() {
            @Override
            public boolean once(long nanos, Runnable task) {
                return once.once(nanos, task);
            }

            @Override
            public long nanoTime() {
                return clock.getAsLong();
            }
        };
    }
}
