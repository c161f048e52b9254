package io.locked.internal.telemetry;

import io.locked.api.LockInterruptedException;
import io.locked.api.LockManagerClosedException;
import io.locked.api.LockStoreUnavailableException;
import io.locked.internal.base.LockMeter;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One request's telemetry: its wait span and its hold span, both children of the context current on the
 * requesting thread when the request began. Each span is made whole when its end is known, with the
 * start it had: a request that turns out to be a reentrant entry reports nothing and so leaves no span.
 * The loss of a hold may be reported by the watchdog's thread, its release by the holder's.
 */
final class TracedRequest implements LockMeter {
    private final Tracer tracer;
    private final Context parent;
    private final LockInstruments.Lock lock;
    private final String key;
    private final Duration wait;
    private volatile long heldSinceEpochNanos;
    private volatile long token;
    private final AtomicBoolean holdReported = new AtomicBoolean();

    /**
     * @param key  the rendered key for the spans, or null to name the lock by its name alone
     * @param wait the request's wait, or null when not known
     */
    TracedRequest(Tracer tracer, Context parent, LockInstruments.Lock lock, String key, Duration wait) {
        this.tracer = tracer;
        this.parent = parent;
        this.lock = lock;
        this.key = key;
        this.wait = wait;
    }

    @Override
    public void acquired(long waitedNanos, long token) {
        lock.waited(waitedNanos, LockConvention.ACQUIRED);
        long now = epochNanos();
        this.token = token;
        this.heldSinceEpochNanos = now;
        holdReported.set(false);
        endWait(waitedNanos, now, LockConvention.ACQUIRED, null, false).setAttribute(LockConvention.TOKEN, token)
                .end(now, TimeUnit.NANOSECONDS);
    }

    // not acquired within the wait is an answer, not a failure: SKIP relies on it
    @Override
    public void notAcquired(long waitedNanos) {
        lock.waited(waitedNanos, LockConvention.BUSY);
        long now = epochNanos();
        endWait(waitedNanos, now, LockConvention.BUSY, LockConvention.BUSY, false).end(now, TimeUnit.NANOSECONDS);
    }

    @Override
    public void noConnection(long waitedNanos) {
        lock.waited(waitedNanos, LockConvention.NO_CONNECTION);
        long now = epochNanos();
        endWait(waitedNanos, now, LockConvention.NO_CONNECTION, LockConvention.NO_CONNECTION, true)
                .end(now, TimeUnit.NANOSECONDS);
    }

    @Override
    public void failed(long waitedNanos, Throwable cause) {
        String outcome = cause instanceof LockStoreUnavailableException ? LockConvention.STORE_FAILED
                : cause instanceof LockInterruptedException ? LockConvention.INTERRUPTED
                : cause instanceof LockManagerClosedException ? LockConvention.CLOSED
                : LockConvention.FAILED;
        lock.waited(waitedNanos, outcome);
        long now = epochNanos();
        endWait(waitedNanos, now, outcome, cause == null ? outcome : cause.getClass().getName(), true)
                .end(now, TimeUnit.NANOSECONDS);
    }

    @Override
    public void storeFailed(StoreOperation operation) {
        lock.storeFailed(operation);
    }

    // the hold ends for the trace where the lock was lost, whenever its holder learns it
    @Override
    public void lost() {
        lock.lost();
        if (holdReported.compareAndSet(false, true)) {
            endHold(LockConvention.LOST);
        }
    }

    @Override
    public void holdEnded(long heldNanos, HoldOutcome outcome) {
        String named = switch (outcome) {
            case RELEASED -> LockConvention.RELEASED;
            case LOST -> LockConvention.LOST;
            case FAILED -> LockConvention.RELEASE_FAILED;
        };
        lock.holdEnded(heldNanos, named);
        if (holdReported.compareAndSet(false, true)) {
            endHold(named);
        }
    }

    private Span endWait(long waitedNanos, long now, String outcome, String errorType, boolean failure) {
        Span span = start(LockConvention.WAIT_SPAN, now - waitedNanos, outcome);
        if (wait != null) {
            span.setAttribute(LockConvention.WAIT_TIMEOUT, wait.toNanos() / 1e9);
        }
        if (errorType != null) {
            span.setAttribute(LockConvention.ERROR_TYPE, errorType);
        }
        if (failure) {
            span.setStatus(StatusCode.ERROR);
        }
        return span;
    }

    private void endHold(String outcome) {
        Span span = start(LockConvention.HOLD_SPAN, heldSinceEpochNanos, outcome).setAttribute(LockConvention.TOKEN, token);
        if (!LockConvention.RELEASED.equals(outcome)) {
            span.setAttribute(LockConvention.ERROR_TYPE, outcome).setStatus(StatusCode.ERROR);
        }
        span.end(epochNanos(), TimeUnit.NANOSECONDS);
    }

    private Span start(String spanName, long startEpochNanos, String outcome) {
        SpanBuilder builder = tracer.spanBuilder(spanName).setParent(parent).setSpanKind(SpanKind.INTERNAL)
                .setStartTimestamp(startEpochNanos, TimeUnit.NANOSECONDS)
                .setAttribute(LockConvention.NAME, lock.name)
                .setAttribute(LockConvention.MODE, lock.mode)
                .setAttribute(LockConvention.TYPE, lock.type)
                .setAttribute(LockConvention.OUTCOME, outcome);
        if (key != null) {
            builder.setAttribute(LockConvention.KEY, key);
        }
        return builder.startSpan();
    }

    private static long epochNanos() {
        Instant now = Instant.now();
        return TimeUnit.SECONDS.toNanos(now.getEpochSecond()) + now.getNano();
    }
}
