package io.locked.it.weld.drain;

import io.locked.api.Locked;
import io.locked.api.OnTimeout;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A scheduled job that, once inside its lock, goes on with a step locked on the same key. */
@ApplicationScoped
public class NightlyJob {
    private final CountDownLatch inside = new CountDownLatch(1);
    private final CountDownLatch goOn = new CountDownLatch(1);
    @Inject
    NightlyStep step;

    @Locked(value = "nightly", maxWait = "0s", onTimeout = OnTimeout.SKIP)
    public void run() throws InterruptedException {
        inside.countDown();
        if (!goOn.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the test never let the job go on");
        }
        step.finish();
    }

    /** @return whether the job got inside its lock within the time */
    public boolean awaitInside(long seconds) throws InterruptedException {
        return inside.await(seconds, TimeUnit.SECONDS);
    }

    /** Lets the job go on to its step. */
    public void goOn() {
        goOn.countDown();
    }
}
