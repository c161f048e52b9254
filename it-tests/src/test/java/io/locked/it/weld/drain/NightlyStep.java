package io.locked.it.weld.drain;

import io.locked.api.Locked;
import io.locked.api.OnTimeout;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.atomic.AtomicBoolean;

/** The job's last step, locked on the job's key: inside the job, a re-entry. */
@ApplicationScoped
public class NightlyStep {
    /** Outside the bean: the container that ran the step may have stopped when the test asks. */
    static final AtomicBoolean FINISHED = new AtomicBoolean();

    @Locked(value = "nightly", maxWait = "0s", onTimeout = OnTimeout.SKIP)
    public void finish() {
        FINISHED.set(true);
    }
}
