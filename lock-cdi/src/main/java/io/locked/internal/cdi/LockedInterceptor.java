package io.locked.internal.cdi;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerClosedException;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.api.Locked;
import io.locked.api.OnTimeout;
import io.locked.api.event.LockAcquired;
import io.locked.api.event.LockNotAcquired;
import io.locked.api.event.LockRenewalFailed;
import io.locked.internal.definition.LockedSettings;
import io.locked.internal.definition.ReturnKind;
import io.locked.spi.LockRepository;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.AroundTimeout;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Runs a {@code @Locked} method under its lock: a business method call, and an EJB timeout (a
 * {@code @Schedule} or {@code @Timeout} method), around which the container calls interceptors'
 * {@code @AroundTimeout} methods, not their {@code @AroundInvoke} ones. Priority
 * {@link InterceptorPriority#DEFAULT} (configurable with {@code locked.interceptor-priority}) puts it
 * outside {@code @Transactional}.
 */
@Locked
@Interceptor
@Priority(InterceptorPriority.DEFAULT)
public class LockedInterceptor {
    private static final Logger LOG = Logger.getLogger(LockedInterceptor.class.getName());
    // field injection and the implicit no-argument constructor: Weld makes a serializable subclass of
    // an interceptor bound to an EJB (Payara), whose constructor calls the superclass's without arguments
    @Inject
    LockManager locks;
    @Inject
    LockedMethods methods;
    @Inject
    LockEvents events;
    @Inject
    LockRepository store;
    StoreCreationFailures storeCreationFailures = StoreCreationFailures.OF_THIS_APPLICATION;
    /** Made once: an optimistic lock's early warnings, as CDI events. */
    private final Consumer<LockRenewalFailed> renewalFailures = warning -> events.renewalFailed(warning);

    @AroundInvoke
    Object lock(InvocationContext invocation) throws Exception {
        return proceedLocked(invocation, settingsOf(invocation));
    }

    /**
     * The same lock, keys, waits and skips for an EJB timer's callback. Runtimes without EJB timers
     * (Weld SE, Quarkus) never call it.
     */
    @AroundTimeout
    Object lockTimeout(InvocationContext invocation) throws Exception {
        LockedSettings settings = settingsOf(invocation);
        if (settings.enabled()) {
            try {
                store.toString(); // created behind its client proxy, as at deployment
            } catch (RuntimeException noStore) {
                // thrown on, it would make the container log a stack trace per tick (and WildFly retries the
                // tick at once): the run is skipped, as a run whose lock is busy is, and the cause said once
                storeCreationFailures.skipped(settings.method(), noStore);
                return null;
            }
            storeCreationFailures.storeUp();
        }
        return proceedLocked(invocation, settings);
    }

    private LockedSettings settingsOf(InvocationContext invocation) {
        return methods.settings(invocation.getTarget().getClass(), invocation.getMethod());
    }

    private Object proceedLocked(InvocationContext invocation, LockedSettings settings) throws Exception {
        if (!settings.enabled()) {
            return invocation.proceed();
        }
        // metrics are tagged with the template, never the rendered key: one set of meters per method
        // the mode and type first: a lock-delay needs OPTIMISTIC, permits and minimum holds need their type
        LockRequest request = LockRequest.of(settings.key().render(invocation.getParameters())).mode(settings.mode())
                .type(settings.type()).maxWait(settings.maxWait()).lease(settings.lease()).name(settings.key().toString())
                .holdAtLeast(settings.holdAtLeast()).lockDelay(settings.lockDelay()).permits(settings.permits());
        if (settings.returnKind().isUni()) {
            return MutinyLocking.lockedAtSubscription(() -> new NonBlockingLockedCall(locks, events, settings, request, renewalFailures)
                    .start(invocation, MutinyLocking::subscribe, true));
        }
        if (settings.returnKind().isAsync() && EventLoops.callerMustNotBlock()) {
            return new NonBlockingLockedCall(locks, events, settings, request, renewalFailures).start(invocation, NonBlockingLockedCall::ofStage, false);
        }
        long started = System.nanoTime();
        LockHandle handle;
        try {
            handle = locks.acquire(request);
        } catch (LockNotAcquiredException | LockManagerClosedException notHeld) {
            if (skips(events, settings, request, notHeld)) {
                return settings.returnKind().skippedResult();
            }
            throw notHeld;
        }
        long acquired = System.nanoTime();
        if (handle.mode() == LockMode.OPTIMISTIC) {
            handle.onRenewalFailure(renewalFailures);
        }
        events.acquired(new LockAcquired(request.key(), request.mode(), handle.token(), Duration.ofNanos(acquired - started)));
        if (settings.returnKind().isAsync()) {
            return proceedAsync(invocation, handle, acquired);
        }
        Object result;
        try {
            result = invocation.proceed();
        } catch (Throwable failure) {
            releaseAfterFailure(handle, acquired, failure);
            throw failure;
        }
        if (settings.returnKind() == ReturnKind.DYNAMIC && result != null) {
            return dynamicResult(settings, result, handle, acquired);
        }
        release(handle, acquired);
        return result;
    }

    // The lock is held until the returned stage completes, then released on whichever thread
    // completes it. The calling thread leaves the lock's scope when the method returns: calling
    // the method again from it waits for this stage like any other caller.
    private Object proceedAsync(InvocationContext invocation, LockHandle handle, long acquired) throws Exception {
        CompletionStage<?> stage;
        try {
            stage = (CompletionStage<?>) invocation.proceed();
        } catch (Throwable failure) {
            releaseAfterFailure(handle, acquired, failure);
            throw failure;
        }
        if (stage == null) {
            release(handle, acquired);
            return null;
        }
        return holdUntilComplete(stage, handle, acquired);
    }

    private CompletableFuture<Object> holdUntilComplete(CompletionStage<?> stage, LockHandle handle, long acquired) {
        handle.handOver();
        CompletableFuture<Object> outcome = new CompletableFuture<>();
        stage.whenComplete((value, failure) -> {
            try {
                if (failure != null) {
                    releaseAfterFailure(handle, acquired, failure);
                    outcome.completeExceptionally(failure);
                } else {
                    release(handle, acquired);
                    outcome.complete(value);
                }
            } catch (Throwable releaseFailure) {
                // whatever the release threw, the caller's stage must complete
                outcome.completeExceptionally(releaseFailure);
            }
        });
        return outcome;
    }

    // A method declared to return Object: a stage is held like a declared one; another async result
    // would run on unlocked, so the call fails rather than release early in silence.
    private Object dynamicResult(LockedSettings settings, Object result, LockHandle handle, long acquired) {
        if (result instanceof CompletionStage<?> stage) {
            return holdUntilComplete(stage, handle, acquired);
        }
        String async = ReturnKind.asyncKindOf(result.getClass());
        if (async == null) {
            release(handle, acquired);
            return result;
        }
        IllegalStateException refused = new IllegalStateException("@Locked method " + settings.method() + " returned a "
                + async + ", whose work may go on after the method returned: Locked cannot hold the lock until it ends."
                + " Return CompletionStage or CompletableFuture, or lock inside the asynchronous work.");
        releaseAfterFailure(handle, acquired, refused);
        throw refused;
    }

    /**
     * Tells the observers of a lock not acquired, and decides whether the call is skipped: a key held past the
     * wait (or no connection, for {@code SKIP_ANY}) as the method's on-timeout says, and a trigger that fired
     * while the application stops unless the method throws. Shared by the blocking and non-blocking calls.
     *
     * @return true to skip the call, false to fail it with {@code notHeld}
     */
    static boolean skips(LockEvents events, LockedSettings settings, LockRequest request, RuntimeException notHeld) {
        if (notHeld instanceof LockNotAcquiredException notAcquired) {
            boolean skip = settings.skips(notAcquired.reason());
            events.notAcquired(new LockNotAcquired(request.key(), request.mode(), request.maxWait(),
                    skip ? OnTimeout.SKIP : OnTimeout.THROW, notAcquired.reason()));
            return skip;
        }
        if (notHeld instanceof LockManagerClosedException stopping && settings.onTimeout() != OnTimeout.THROW) {
            // a trigger that fired while the application stops: nobody may start the job here now
            LOG.info(() -> "Skipped " + settings.method() + ": the application is stopping (" + stopping.getMessage() + ")");
            return true;
        }
        return false;
    }

    private void release(LockHandle handle, long acquired) {
        LockedRelease.release(events, handle, acquired);
    }

    private void releaseAfterFailure(LockHandle handle, long acquired, Throwable failure) {
        LockedRelease.releaseAfterFailure(events, handle, acquired, failure);
    }
}
