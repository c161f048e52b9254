package io.locked.it.weld.skip;

import io.locked.api.Locked;
import io.locked.api.OnTimeout;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

/** Methods that skip when the lock is busy, one per return type that allows it, and one that skips for any reason. */
@ApplicationScoped
public class Cleaner {
    private final AtomicInteger runs = new AtomicInteger();

    /** @return how many calls ran */
    public int runs() {
        return runs.get();
    }

    @Locked(value = "clean", maxWait = "0s", onTimeout = OnTimeout.SKIP)
    public void clean() {
        runs.incrementAndGet();
    }

    @Locked(value = "clean", maxWait = "0s", onTimeout = OnTimeout.SKIP)
    public Optional<String> cleanAndReport() {
        runs.incrementAndGet();
        return Optional.of("cleaned");
    }

    @Locked(value = "clean", maxWait = "0s", onTimeout = OnTimeout.SKIP_ANY)
    public void cleanWhateverKeptTheLock() {
        runs.incrementAndGet();
    }

    @Locked(value = "clean", maxWait = "0s", onTimeout = OnTimeout.SKIP)
    public CompletionStage<Void> cleanLater() {
        runs.incrementAndGet();
        return CompletableFuture.completedFuture(null);
    }
}
