package io.locked.internal.metrics;

import io.locked.api.LockMode;
import io.locked.internal.base.LockKind;
import io.locked.internal.base.LockMeter;
import io.locked.internal.base.LockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lock's meters on one Micrometer registry: one {@link MicrometerLockMeter} per lock name,
 * mode and kind, built on first use and kept, so a call after the first registers nothing.
 */
final class MicrometerLockMetrics implements LockMetrics {
    private final MeterRegistry registry;
    private final Map<MeterTags, LockMeter> meters = new ConcurrentHashMap<>();

    private record MeterTags(String name, LockMode mode, LockKind kind) {
    }

    private MicrometerLockMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    static LockMetrics onGlobalRegistry() {
        return new MicrometerLockMetrics(Metrics.globalRegistry);
    }

    static LockMetrics on(Object registry) {
        if (!(registry instanceof MeterRegistry meterRegistry)) {
            throw new IllegalArgumentException("Expected an " + MeterRegistry.class.getName() + ", was "
                    + (registry == null ? "null" : registry.getClass().getName()));
        }
        return new MicrometerLockMetrics(meterRegistry);
    }

    @Override
    public LockMeter forLock(String name, LockMode mode, LockKind kind) {
        return meters.computeIfAbsent(new MeterTags(name, mode, kind), key -> new MicrometerLockMeter(registry, name, mode,
                kind));
    }
}
