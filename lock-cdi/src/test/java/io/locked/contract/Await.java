package io.locked.contract;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.locked.api.LockHandle;
import java.time.Duration;

/** Waits for a condition the lock reaches on its own (a watchdog's verdict), polling, within a patience. */
public final class Await {
    private Await() {
    }

    /**
     * Returns once the handle knows its lock is lost.
     *
     * @param patience how long before the test fails, naming what never happened
     * @param what     what should have made it invalid, for the failure message
     */
    public static void invalid(LockHandle handle, Duration patience, String what) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (handle.isValid() && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
        }
        assertFalse(handle.isValid(), () -> "within " + patience + ", " + what + " never made the handle invalid");
    }

    /**
     * Returns once the condition holds.
     *
     * @param patience how long before the test fails, naming what never happened
     * @param what     what should have happened, for the failure message
     */
    public static void until(java.util.function.BooleanSupplier condition, Duration patience, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("within " + patience + ", " + what + " never happened");
            }
            Thread.sleep(10);
        }
    }
}
