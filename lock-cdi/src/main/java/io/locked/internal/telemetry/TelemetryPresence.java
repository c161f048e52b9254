package io.locked.internal.telemetry;

import io.locked.internal.base.LockMetrics;

/**
 * Chooses the lock's telemetry without loading an OpenTelemetry type unless its API is on the class
 * path: every class that uses it is reached only from a method that runs after the check.
 */
public final class TelemetryPresence {
    private static final String API_CLASS = "io.opentelemetry.api.OpenTelemetry";
    private static final boolean PRESENT = isLoadable(API_CLASS);

    private TelemetryPresence() {
    }

    /** @return whether the OpenTelemetry API can be loaded by the lock's own class loader */
    public static boolean onClassPath() {
        return PRESENT;
    }

    /**
     * @param openTelemetry an {@code io.opentelemetry.api.OpenTelemetry}
     * @param renderedKeys  whether spans carry each lock's rendered key, or only its name
     * @return spans and metrics through it
     * @throws IllegalArgumentException if the API is absent, or the argument null or not an {@code OpenTelemetry}
     */
    public static LockMetrics on(Object openTelemetry, boolean renderedKeys) {
        if (!PRESENT) {
            throw new IllegalArgumentException("An OpenTelemetry was given but its API (" + API_CLASS
                    + ") is not on the class path");
        }
        return OpenTelemetryLockMetrics.on(openTelemetry, renderedKeys);
    }

    private static boolean isLoadable(String className) {
        try {
            Class.forName(className, false, TelemetryPresence.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }
}
