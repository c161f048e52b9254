package io.locked.internal.base;

import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import java.time.Duration;

/**
 * Where the core reports what its locks do, for metrics and traces. The core knows no metrics or
 * tracing library: {@link io.locked.internal.metrics} adapts this to Micrometer and
 * {@link io.locked.internal.telemetry} to OpenTelemetry, each when the application has it.
 */
public interface LockMetrics {

    /** Reports nothing: the choice when neither Micrometer nor OpenTelemetry is used. */
    LockMetrics NONE = (name, mode, kind) -> LockMeter.NONE;

    /**
     * @param name the lock's name: a key template or a name the caller chose, never a rendered key
     *             (one set of meters per name)
     * @param mode the lock mode
     * @param kind exclusive, or a permit
     * @return the meter for the lock's acquisitions; called once per acquisition, so keep it cheap
     */
    LockMeter forLock(String name, LockMode mode, LockKind kind);

    /**
     * The meter of one request, called on the requesting thread as its wait begins (a reentrant
     * entry calls it too, and then reports nothing to it). By default the meter of the request's
     * name: an implementation that traces each request (its key, its caller's context) overrides it.
     *
     * @param request the request, with its rendered key and its name
     * @param wait    how long the request may wait
     * @param kind    what it asks for
     * @return the meter for this request's acquisition and hold
     */
    default LockMeter forRequest(LockRequest request, Duration wait, LockKind kind) {
        return forLock(request.name(), request.mode(), kind);
    }

    /**
     * Wraps a task that will acquire a lock on another thread (an asynchronous acquisition on an
     * executor) so that the reports see the caller's context there: a tracing implementation makes the
     * caller's current span the parent of the lock's spans. Call it on the caller's thread, when the
     * task is handed over. By default the task itself.
     *
     * @param task what will acquire on another thread
     * @return the task to run there instead
     */
    default Runnable carryContext(Runnable task) {
        return task;
    }

    /**
     * @param first  reported to first
     * @param second reported to next
     * @return both: every report goes to each, the first before the second
     */
    static LockMetrics both(LockMetrics first, LockMetrics second) {
        if (first == NONE) {
            return second;
        }
        return second == NONE ? first : new BothLockMetrics(first, second);
    }
}
