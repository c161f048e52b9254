package io.locked.it.weld.config;

import io.locked.api.LockMode;
import io.locked.api.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.atomic.AtomicInteger;

/** Three methods whose settings come from different config levels. */
@ApplicationScoped
public class Reports {
    private final AtomicInteger runs = new AtomicInteger();

    /** @return how many calls ran */
    public int runs() {
        return runs.get();
    }

    @Locked(value = "report:daily", maxWait = "20s")
    public void daily() {
        runs.incrementAndGet();
    }

    @Locked(value = "report:weekly", maxWait = "20s", mode = LockMode.PESSIMISTIC)
    public void weekly() {
        runs.incrementAndGet();
    }

    @Locked(value = "report:monthly", maxWait = "20s")
    public void monthly() {
        runs.incrementAndGet();
    }
}
