package io.locked.eeapp;

import io.locked.api.LockMode;
import io.locked.api.LockType;
import io.locked.api.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/**
 * A catalog that at most two exports read at once (permits), that many readers browse at once and
 * that one replacement rewrites alone (a read/write lock), across every server, in both modes. Each
 * export and read stays inside until the test lets it go ({@link HeldCalls}); none waits for its
 * lock, so that a call the lock keeps out is refused at once.
 */
@ApplicationScoped
public class Catalog {
    @Inject
    HeldCalls held;

    @Locked(value = "export:{batch}", permits = 2, maxWait = "0s")
    public String exportPessimistic(String batch, String call) throws InterruptedException {
        return held.hold(batch, call);
    }

    @Locked(value = "export:{batch}", permits = 2, maxWait = "0s", mode = LockMode.OPTIMISTIC)
    public String exportOptimistic(String batch, String call) throws InterruptedException {
        return held.hold(batch, call);
    }

    @Locked(value = "catalog:{batch}", type = LockType.READ, maxWait = "0s")
    public String browsePessimistic(String batch, String call) throws InterruptedException {
        return held.hold(batch, call);
    }

    @Locked(value = "catalog:{batch}", type = LockType.READ, maxWait = "0s", mode = LockMode.OPTIMISTIC)
    public String browseOptimistic(String batch, String call) throws InterruptedException {
        return held.hold(batch, call);
    }

    @Locked(value = "catalog:{batch}", type = LockType.WRITE, maxWait = "0s")
    public String replacePessimistic(String batch) {
        return "replaced " + batch;
    }

    @Locked(value = "catalog:{batch}", type = LockType.WRITE, maxWait = "0s", mode = LockMode.OPTIMISTIC)
    public String replaceOptimistic(String batch) {
        return "replaced " + batch;
    }
}
