package io.locked.it.weld.invalid;

import io.locked.api.LockMode;
import io.locked.api.Locked;
import jakarta.enterprise.context.Dependent;

/** Durations too large for a {@code java.time.Duration}, and a lease past the longest one. */
@Dependent
public class OverflowingDurationBean {

    @Locked(value = "report", maxWait = "9999999999999999d")
    public void report() {
    }

    @Locked(value = "job", mode = LockMode.OPTIMISTIC, lease = "99999999999999999us")
    public void job() {
    }

    @Locked(value = "forever", mode = LockMode.OPTIMISTIC, lease = "400d")
    public void forever() {
    }
}
