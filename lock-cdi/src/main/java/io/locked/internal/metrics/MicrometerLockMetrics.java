package io.locked.internal.metrics;

import io.locked.api.LockMode;
import io.locked.internal.LockMeter;
import io.locked.internal.LockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lock's meters on one Micrometer registry: one {@link MicrometerLockMeter} per lock name and
 * mode, built on first use and kept, so a call after the first registers nothing.
 */
final class MicrometerLockMetrics implements LockMetrics {
    private final MeterRegistry registry;
    private final Map<NameAndMode, LockMeter> meters = new ConcurrentHashMap<>();

    private record NameAndMode(String name, LockMode mode) {
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
    public LockMeter forLock(String name, LockMode mode) {
        return meters.computeIfAbsent(new NameAndMode(name, mode), key -> new MicrometerLockMeter(registry, name, mode));
    }
}
