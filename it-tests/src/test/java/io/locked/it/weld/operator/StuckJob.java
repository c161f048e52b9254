package io.locked.it.weld.operator;

import io.locked.api.LockMode;
import io.locked.api.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A job that hangs inside its lock until the test lets it go, as a stuck job does until an operator steps in. */
@ApplicationScoped
public class StuckJob {
    private volatile CountDownLatch entered = new CountDownLatch(1);
    private volatile CountDownLatch letGo = new CountDownLatch(1);

    @Locked(value = "job:{name}", mode = LockMode.OPTIMISTIC, lease = "30s")
    public void runOptimistic(String name) throws InterruptedException {
        hang();
    }

    @Locked(value = "job:{name}", mode = LockMode.PESSIMISTIC)
    public void runPessimistic(String name) throws InterruptedException {
        hang();
    }

    private void hang() throws InterruptedException {
        entered.countDown();
        if (!letGo.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the test never let the job go");
        }
    }

    /** Waits until a call is inside its lock. */
    void awaitEntered() throws InterruptedException {
        if (!entered.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the job never entered its lock");
        }
    }

    void letGo() {
        letGo.countDown();
    }

    void reset() {
        entered = new CountDownLatch(1);
        letGo = new CountDownLatch(1);
    }
}
