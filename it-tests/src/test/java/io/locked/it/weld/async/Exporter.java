package io.locked.it.weld.async;

import io.locked.api.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** An asynchronous job: the lock is held until the returned stage completes. */
@ApplicationScoped
public class Exporter {

    @Locked("export")
    public CompletionStage<String> export(CompletableFuture<String> work) {
        return work;
    }

    /** The same lock with a short wait. */
    @Locked(value = "export", maxWait = "200ms")
    public CompletionStage<String> exportIfFree(CompletableFuture<String> work) {
        return work;
    }

    /** Declared Object: a stage returned at run time is held all the same. */
    @Locked("export")
    public Object exportAnything(Object work) {
        return work;
    }
}
