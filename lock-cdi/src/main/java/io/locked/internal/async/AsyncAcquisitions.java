package io.locked.internal.async;

import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockManagerClosedException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs a manager's blocking acquisitions on an executor and hands their holds out as stages. A hold got
 * this way belongs to no thread (it is handed over as soon as it is got): whoever completes the caller's
 * work closes it, from any thread.
 */
public final class AsyncAcquisitions {
    private static final Logger LOG = Logger.getLogger(AsyncAcquisitions.class.getName());
    private final UnaryOperator<Runnable> carryContext;
    private Executor executor; // guarded by this; the default is made at the first asynchronous acquisition
    private boolean owned;
    private boolean closed;

    /** @param carryContext wraps a task so that it runs in its submitter's context (telemetry) */
    public AsyncAcquisitions(UnaryOperator<Runnable> carryContext) {
        this.carryContext = carryContext;
    }

    /** @param given where the blocking acquisitions run; null for the default ({@link AsyncThreads}) */
    public synchronized void runOn(Executor given) {
        if (owned) {
            throw new IllegalStateException("The executor of asynchronous acquisitions is already in use");
        }
        this.executor = given;
    }

    private synchronized Executor executor() {
        if (executor == null && !closed) {
            executor = AsyncThreads.newDefault();
            owned = true;
        }
        return executor;
    }

    /**
     * @param acquire the blocking acquisition
     * @return its hold, handed over, once got
     */
    public CompletableFuture<LockHandle> acquire(Supplier<LockHandle> acquire) {
        return start(() -> acquire.get().handOver(), AsyncAcquisitions::giveBack);
    }

    /**
     * @param tryAcquire the blocking attempt without a wait
     * @return its hold, handed over, or empty when the key is held
     */
    public CompletableFuture<Optional<LockHandle>> tryAcquire(Supplier<Optional<LockHandle>> tryAcquire) {
        return start(() -> tryAcquire.get().map(LockHandle::handOver), held -> held.ifPresent(AsyncAcquisitions::giveBack));
    }

    /**
     * Acquires, runs the action once the hold is got, and releases when the action's stage completes. A
     * cancel while waiting ends the wait; a cancel once the action runs changes nothing of the hold, which
     * lasts until the action's own stage completes (releasing earlier could let two holders work at once).
     *
     * @param acquire the blocking acquisition
     * @param action  the work under the lock
     * @param <T>     the action's result type
     * @return the action's outcome, or the acquisition's failure; a failed release fails it too, a failed
     *         action's failure wins and carries the release's failure as suppressed
     */
    public <T> CompletableFuture<T> call(Supplier<LockHandle> acquire,
                                         Function<? super LockHandle, ? extends CompletionStage<T>> action) {
        // started only once the action is chained: else a fast acquisition (a free key, a virtual thread) could
        // complete first, and the action would run on the caller's thread instead of the one that got the hold
        AsyncAttempt<LockHandle> acquisition = new AsyncAttempt<>(() -> acquire.get().handOver(), AsyncAcquisitions::giveBack);
        CompletableFuture<T> outcome = new CompletableFuture<>();
        outcome.whenComplete((ignored, failure) -> {
            if (outcome.isCancelled()) {
                acquisition.cancel(false);
            }
        });
        acquisition.whenComplete((handle, failure) -> {
            if (failure != null) {
                outcome.completeExceptionally(unwrap(failure));
            } else if (outcome.isDone()) {
                giveBack(handle); // the caller gave up (cancelled) as the hold arrived
            } else {
                runHeld(handle, action, outcome);
            }
        });
        start(acquisition);
        return outcome;
    }

    private static <T> void runHeld(LockHandle handle, Function<? super LockHandle, ? extends CompletionStage<T>> action,
                                    CompletableFuture<T> outcome) {
        CompletionStage<T> work;
        try {
            work = action.apply(handle);
            if (work == null) {
                throw new IllegalStateException("The action under lock '" + handle.key() + "' returned no stage");
            }
        } catch (Throwable failure) {
            outcome.completeExceptionally(releasedAfter(handle, failure));
            return;
        }
        work.whenComplete((value, failure) -> {
            if (failure != null) {
                outcome.completeExceptionally(releasedAfter(handle, unwrap(failure)));
                return;
            }
            try {
                handle.close();
            } catch (Throwable releaseFailure) {
                outcome.completeExceptionally(releaseFailure);
                return;
            }
            outcome.complete(value);
        });
    }

    private static Throwable releasedAfter(LockHandle handle, Throwable failure) {
        try {
            handle.close();
        } catch (Throwable releaseFailure) {
            failure.addSuppressed(releaseFailure);
        }
        return failure;
    }

    private <T> CompletableFuture<T> start(Supplier<T> acquisition, Consumer<? super T> giveBack) {
        return start(new AsyncAttempt<>(acquisition, giveBack));
    }

    private <T> CompletableFuture<T> start(AsyncAttempt<T> attempt) {
        try {
            Executor threads = executor();
            if (threads == null) {
                throw new RejectedExecutionException("the manager is closed");
            }
            threads.execute(carryContext.apply(attempt));
        } catch (RejectedExecutionException closed) {
            attempt.completeExceptionally(new LockManagerClosedException("The executor of asynchronous acquisitions"
                    + " refused the acquisition: " + closed.getMessage()));
        }
        return attempt;
    }

    // A hold nobody will close: its caller cancelled. Released here, so that the key is free at once.
    private static void giveBack(LockHandle handle) {
        try {
            handle.close();
        } catch (LockException releaseFailure) {
            LOG.log(Level.FINE, "The hold of '" + handle.key() + "', got after its caller cancelled, could not be released",
                    releaseFailure);
        }
    }

    /** @return the failure a stage completed with, without the wrapper of a dependent stage */
    public static Throwable unwrap(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
    }

    /** Stops the default threads once the manager has drained; an executor given by the user stays its own. */
    public synchronized void close() {
        closed = true;
        if (owned) {
            ((ExecutorService) executor).shutdown();
        }
    }
}
