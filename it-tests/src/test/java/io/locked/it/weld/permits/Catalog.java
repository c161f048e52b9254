package io.locked.it.weld.permits;

import io.locked.api.LockType;
import io.locked.api.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Many readers of the catalog at once, its import alone: the form the README shows. */
@ApplicationScoped
public class Catalog {

    /**
     * @param inside counted down once the call reads
     * @param finish what the call waits for before it returns
     */
    @Locked(value = "catalog", type = LockType.READ, maxWait = "0s")
    public void read(CountDownLatch inside, CountDownLatch finish) throws InterruptedException {
        inside.countDown();
        if (!finish.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the test never let the read finish");
        }
    }

    @Locked(value = "catalog", type = LockType.WRITE, maxWait = "0s")
    public void rewrite() {
    }
}
