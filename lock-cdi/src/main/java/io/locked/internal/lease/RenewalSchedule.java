package io.locked.internal.lease;

/** The watchdog's ticks of one lease's renewals ({@link LeaseWatchdog#watch}). */
@FunctionalInterface
public interface RenewalSchedule {
    /** Ends the ticks: no renewal of the lease becomes due from now on (one already due may still run). */
    void stop();
}
