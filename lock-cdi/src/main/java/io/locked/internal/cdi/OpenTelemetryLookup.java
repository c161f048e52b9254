package io.locked.internal.cdi;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import jakarta.enterprise.inject.Instance;

/** Finds the application's OpenTelemetry. Loaded only once its API is known to be on the class path. */
final class OpenTelemetryLookup {

    private OpenTelemetryLookup() {
    }

    /**
     * @return the {@link OpenTelemetry} bean if exactly one resolves (MicroProfile Telemetry and Quarkus
     *         provide one), else {@link GlobalOpenTelemetry} (the Java agent's, or what the application set)
     */
    static Object openTelemetry(Instance<Object> beans) {
        Instance<OpenTelemetry> candidates = beans.select(OpenTelemetry.class);
        return candidates.isResolvable() ? candidates.get() : GlobalOpenTelemetry.get();
    }
}
