package io.locked.internal.telemetry;

import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.internal.base.LockKind;
import io.locked.internal.base.LockMeter;
import io.locked.internal.base.LockMetrics;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerBuilder;
import io.opentelemetry.context.Context;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lock's spans and metrics on one {@link OpenTelemetry}: a {@link TracedRequest} per request, under
 * the requesting thread's current context, and one {@link LockInstruments.Lock} per lock name, mode and
 * kind, built on first use and kept.
 */
final class OpenTelemetryLockMetrics implements LockMetrics {
    private final Tracer tracer;
    private final LockInstruments instruments;
    private final boolean renderedKeys;
    private final Map<LockTags, LockInstruments.Lock> locks = new ConcurrentHashMap<>();

    private record LockTags(String name, LockMode mode, LockKind kind) {
    }

    private OpenTelemetryLockMetrics(OpenTelemetry openTelemetry, boolean renderedKeys) {
        String version = OpenTelemetryLockMetrics.class.getPackage().getImplementationVersion();
        TracerBuilder tracerBuilder = openTelemetry.tracerBuilder(LockConvention.SCOPE);
        this.tracer = (version == null ? tracerBuilder : tracerBuilder.setInstrumentationVersion(version)).build();
        this.instruments = new LockInstruments(openTelemetry.getMeter(LockConvention.SCOPE));
        this.renderedKeys = renderedKeys;
    }

    static LockMetrics on(Object openTelemetry, boolean renderedKeys) {
        if (!(openTelemetry instanceof OpenTelemetry api)) {
            throw new IllegalArgumentException("Expected an " + OpenTelemetry.class.getName() + ", was "
                    + (openTelemetry == null ? "null" : openTelemetry.getClass().getName()));
        }
        return new OpenTelemetryLockMetrics(api, renderedKeys);
    }

    @Override
    public LockMeter forLock(String name, LockMode mode, LockKind kind) {
        return new TracedRequest(tracer, Context.current(), lock(name, mode, kind), null, null);
    }

    @Override
    public LockMeter forRequest(LockRequest request, Duration wait, LockKind kind) {
        return new TracedRequest(tracer, Context.current(), lock(request.name(), request.mode(), kind),
                renderedKeys ? request.key() : null, wait);
    }

    @Override
    public Runnable carryContext(Runnable task) {
        return Context.current().wrap(task);
    }

    private LockInstruments.Lock lock(String name, LockMode mode, LockKind kind) {
        return locks.computeIfAbsent(new LockTags(name, mode, kind), tags -> instruments.forLock(name, mode, kind));
    }
}
