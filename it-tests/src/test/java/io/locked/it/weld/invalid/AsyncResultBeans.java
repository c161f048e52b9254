package io.locked.it.weld.invalid;

import io.locked.api.Locked;
import jakarta.enterprise.context.Dependent;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.SubmissionPublisher;

/** Results whose work outlives the call in forms the lock cannot follow: each fails the deployment. */
public final class AsyncResultBeans {
    private AsyncResultBeans() {
    }

    /** A stage type of its own, which the interceptor could not hand back wrapped. */
    public static class OwnStage<T> extends CompletableFuture<T> {
    }

    @Dependent
    public static class FutureBean {
        @Locked("future")
        public Future<String> submit() {
            return CompletableFuture.completedFuture("x");
        }
    }

    @Dependent
    public static class OwnStageBean {
        @Locked("own-stage")
        public OwnStage<String> start() {
            return new OwnStage<>();
        }
    }

    @Dependent
    public static class PublisherBean {
        @Locked("publisher")
        public Flow.Publisher<String> stream() {
            return new SubmissionPublisher<>();
        }
    }
}
