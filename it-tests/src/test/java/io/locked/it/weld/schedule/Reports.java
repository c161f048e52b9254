package io.locked.it.weld.schedule;

import io.locked.api.Locked;
import io.locked.api.OnTimeout;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Jobs as a scheduler on each instance would trigger them: skip when another instance has the key.
 * Each takes a run id in its key, so that an hour's hold left by one test run never meets the next.
 */
@ApplicationScoped
public class Reports {
    private final AtomicInteger nightlyRuns = new AtomicInteger();
    private final AtomicInteger hourlyRuns = new AtomicInteger();

    @Locked(value = "nightly:{run}", maxWait = "0s", onTimeout = OnTimeout.SKIP, holdAtLeast = "1h")
    public void nightly(String run) {
        nightlyRuns.incrementAndGet();
    }

    /** No hold of its own: config may give it one. */
    @Locked(value = "hourly:{run}", maxWait = "0s", onTimeout = OnTimeout.SKIP)
    public void hourly(String run) {
        hourlyRuns.incrementAndGet();
    }

    public int nightlyRuns() {
        return nightlyRuns.get();
    }

    public int hourlyRuns() {
        return hourlyRuns.get();
    }
}
