package io.locked.internal.async;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockRequest;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;

/** A lock manager's asynchronous calls: its blocking ones, run on the executor of {@link AsyncAcquisitions}. */
public abstract class AsyncLockCalls implements LockManager {
    private final AsyncAcquisitions async;

    // the hook is called at each asynchronous acquisition, once the subclass is built
    protected AsyncLockCalls() {
        this.async = new AsyncAcquisitions(this::carryContext);
    }

    /**
     * @param task what will acquire a lock on another thread, wrapped on the caller's thread
     * @return the task, carrying the caller's context (its trace) to the thread that runs it
     */
    public abstract Runnable carryContext(Runnable task);

    @Override
    public CompletionStage<LockHandle> acquireAsync(LockRequest request) {
        requireRequest(request);
        return async.acquire(() -> acquire(request));
    }

    @Override
    public CompletionStage<Optional<LockHandle>> tryAcquireAsync(LockRequest request) {
        requireRequest(request);
        return async.tryAcquire(() -> tryAcquire(request));
    }

    @Override
    public <T> CompletionStage<T> callLockedAsync(LockRequest request, Function<LockHandle, ? extends CompletionStage<T>> action) {
        requireRequest(request);
        if (action == null) {
            throw new IllegalArgumentException("action must not be null for key '" + request.key() + "'");
        }
        return async.call(() -> acquire(request), action);
    }

    /** @param executor where the asynchronous acquisitions wait ({@link io.locked.api.LockManagerBuilder#asyncExecutor}); null: the default */
    public void asyncExecutor(Executor executor) {
        async.runOn(executor);
    }

    /** Stops the default threads of asynchronous acquisitions: the last step of closing the manager. */
    protected void closeAsyncCalls() {
        async.close();
    }

    /** @param request a request to check */
    protected static void requireRequest(LockRequest request) {
        if (request == null) {
            throw new IllegalArgumentException("Lock request must not be null");
        }
    }
}
