package io.locked.it.weld.lost;

import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.Locked;
import io.locked.api.LockManager;
import io.locked.contract.PausableRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A job that loses its lease halfway: its renewals stop reaching the database. */
@ApplicationScoped
public class LongJob {
    @Inject
    PausableRepository store;
    @Inject
    LockManager locks;

    @Locked(value = "job:long", mode = LockMode.OPTIMISTIC, lease = "400ms")
    public void run() throws Exception {
        store.cutRenewals();
        // keep working until another holder could take the lock: the lease is gone on the database's clock
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline && !takenElsewhere()) {
            Thread.onSpinWait();
        }
    }

    private boolean takenElsewhere() throws Exception {
        return CompletableFuture.supplyAsync(() -> locks.tryAcquire(LockRequest.of("job:long").mode(LockMode.OPTIMISTIC))
                .map(handle -> {
                    handle.close();
                    return true;
                }).orElse(false)).get(30, TimeUnit.SECONDS);
    }
}
