package io.locked.internal.cdi;

import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.event.LockAcquired;
import io.locked.api.event.LockRenewalFailed;
import io.locked.internal.async.AsyncAcquisitions;
import io.locked.internal.definition.LockedSettings;
import jakarta.interceptor.InvocationContext;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One call of a {@code @Locked} method that must not block its caller: a method returning a {@code Uni}, or a
 * stage called on an event loop. The lock is acquired asynchronously; once held, the method runs on its
 * caller's Vert.x context where it has one (else on the thread that got the lock), and the lock is released
 * when what it returned completes. Nothing of the method runs before the lock is held.
 */
final class NonBlockingLockedCall {
    private static final Logger LOG = Logger.getLogger(NonBlockingLockedCall.class.getName());
    private final LockManager locks;
    private final LockEvents events;
    private final LockedSettings settings;
    private final LockRequest request;
    private final Consumer<LockRenewalFailed> renewalFailures;
    private final CompletableFuture<Object> outcome = new CompletableFuture<>();
    private final AtomicReference<CompletableFuture<?>> running = new AtomicReference<>();

    NonBlockingLockedCall(LockManager locks, LockEvents events, LockedSettings settings, LockRequest request,
                          Consumer<LockRenewalFailed> renewalFailures) {
        this.renewalFailures = renewalFailures;
        this.locks = locks;
        this.events = events;
        this.settings = settings;
        this.request = request;
    }

    /**
     * @param invocation  the intercepted call, proceeded once the lock is held
     * @param completion  turns what the method returned into its completion
     * @param cancelsWork whether a cancel of the call cancels the method's work (a {@code Uni}'s subscription);
     *                    a stage's work cannot be told to stop, so the lock is then held until it completes
     * @return the call's outcome: what the method's result completed with, or why the lock was not held
     */
    CompletableFuture<Object> start(InvocationContext invocation, Function<Object, CompletableFuture<Object>> completion,
                                    boolean cancelsWork) {
        Executor callers = EventLoops.callersContext();
        long started = System.nanoTime();
        AtomicBoolean held = new AtomicBoolean();
        // callLockedAsync runs the action on the thread that got the lock, never on this one, even when the lock
        // comes before the action is chained (acquireAsync's stage would then run it here, on the subscriber)
        CompletableFuture<Void> call = locks.<Void>callLockedAsync(request, handle -> {
            held.set(true);
            long acquired = System.nanoTime();
            try {
                if (handle.mode() == LockMode.OPTIMISTIC) {
                    handle.onRenewalFailure(renewalFailures);
                }
                events.acquired(new LockAcquired(request.key(), request.mode(), handle.token(), Duration.ofNanos(acquired - started)));
            } catch (RuntimeException | Error observerFailed) {
                LockedRelease.releaseAfterFailure(events, handle, acquired, observerFailed);
                outcome.completeExceptionally(observerFailed);
                return CompletableFuture.completedFuture(null);
            }
            CompletableFuture<Void> released = new CompletableFuture<>();
            Runnable body = () -> runHeld(invocation, completion, cancelsWork, handle, acquired, released);
            if (callers == null) {
                body.run();
            } else {
                callers.execute(body);
            }
            // the hold is released by runHeld, with its events; the call's own close after this is a no-op
            return released;
        }).toCompletableFuture();
        outcome.whenComplete((ignored, failure) -> {
            if (outcome.isCancelled()) {
                call.cancel(false); // ends a wait; a hold got meanwhile is given back, and the method never runs
                CompletableFuture<?> work = running.get();
                if (cancelsWork && work != null) {
                    work.cancel(false);
                }
            }
        });
        call.whenComplete((ignored, failure) -> {
            if (failure != null && !held.get()) {
                notHeld(AsyncAcquisitions.unwrap(failure));
            }
        });
        return outcome;
    }

    /**
     * Runs the method under the hold and releases the hold, with its events, when the method's work completes;
     * completes {@code released} once the hold is released, whatever happened.
     */
    private void runHeld(InvocationContext invocation, Function<Object, CompletableFuture<Object>> completion,
                         boolean cancelsWork, LockHandle handle, long acquired, CompletableFuture<Void> released) {
        if (outcome.isDone()) { // the caller cancelled as the lock arrived: the method never runs
            try {
                LockedRelease.release(events, handle, acquired);
            } catch (LockException releaseFailure) {
                LOG.log(Level.FINE, "A hold whose caller cancelled could not be released", releaseFailure);
            } finally {
                released.complete(null);
            }
            return;
        }
        CompletableFuture<Object> work;
        try {
            Object result = invocation.proceed();
            work = result == null ? CompletableFuture.completedFuture(null) : completion.apply(result);
        } catch (Throwable failure) {
            try {
                LockedRelease.releaseAfterFailure(events, handle, acquired, failure);
            } finally {
                released.complete(null);
            }
            outcome.completeExceptionally(failure);
            return;
        }
        running.set(work);
        if (cancelsWork && outcome.isCancelled()) {
            work.cancel(false);
        }
        work.whenComplete((value, failure) -> {
            try {
                if (failure != null) {
                    Throwable cause = AsyncAcquisitions.unwrap(failure);
                    LockedRelease.releaseAfterFailure(events, handle, acquired, cause);
                    outcome.completeExceptionally(cause);
                } else {
                    LockedRelease.release(events, handle, acquired);
                    outcome.complete(value);
                }
            } catch (Throwable releaseFailure) {
                outcome.completeExceptionally(releaseFailure); // the caller's outcome must complete whatever happens
            } finally {
                released.complete(null);
            }
        });
    }

    private void notHeld(Throwable failure) {
        if (failure instanceof RuntimeException notHeld && LockedInterceptor.skips(events, settings, request, notHeld)) {
            outcome.complete(null);
        } else {
            outcome.completeExceptionally(failure);
        }
    }

    /** @return a stage method's result as its completion; cancelling the copy leaves the method's own stage alone */
    static CompletableFuture<Object> ofStage(Object stage) {
        CompletableFuture<Object> copy = new CompletableFuture<>();
        ((CompletionStage<?>) stage).whenComplete((value, failure) -> {
            if (failure != null) {
                copy.completeExceptionally(failure);
            } else {
                copy.complete(value);
            }
        });
        return copy;
    }
}
