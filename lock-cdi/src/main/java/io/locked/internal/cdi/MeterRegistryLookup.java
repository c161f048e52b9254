package io.locked.internal.cdi;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import jakarta.enterprise.inject.Instance;

/** Finds the application's Micrometer registry. Loaded only once Micrometer is known to be on the class path. */
final class MeterRegistryLookup {

    private MeterRegistryLookup() {
    }

    /** @return the {@link MeterRegistry} bean if exactly one resolves, else Micrometer's global registry */
    static Object registry(Instance<Object> beans) {
        Instance<MeterRegistry> registries = beans.select(MeterRegistry.class);
        return registries.isResolvable() ? registries.get() : Metrics.globalRegistry;
    }
}
