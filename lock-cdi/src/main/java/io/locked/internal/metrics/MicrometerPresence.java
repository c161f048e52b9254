package io.locked.internal.metrics;

import io.locked.internal.base.LockMetrics;

/**
 * Chooses the lock's metrics without loading a Micrometer type unless Micrometer is on the class
 * path: every Micrometer-using class is reached only from a method that runs after the check.
 */
public final class MicrometerPresence {
    private static final String REGISTRY_CLASS = "io.micrometer.core.instrument.MeterRegistry";
    private static final boolean PRESENT = isLoadable(REGISTRY_CLASS);

    private MicrometerPresence() {
    }

    /** @return whether Micrometer can be loaded by the lock's own class loader */
    public static boolean onClassPath() {
        return PRESENT;
    }

    /** @return metrics on Micrometer's global registry, or none when Micrometer is absent */
    public static LockMetrics globalRegistryOrNone() {
        return PRESENT ? MicrometerLockMetrics.onGlobalRegistry() : LockMetrics.NONE;
    }

    /**
     * @param registry a {@code io.micrometer.core.instrument.MeterRegistry}
     * @return metrics on that registry
     * @throws IllegalArgumentException if Micrometer is absent or the registry is null or not a {@code MeterRegistry}
     */
    public static LockMetrics on(Object registry) {
        if (!PRESENT) {
            throw new IllegalArgumentException("A meter registry was given but Micrometer (" + REGISTRY_CLASS
                    + ") is not on the class path");
        }
        return MicrometerLockMetrics.on(registry);
    }

    private static boolean isLoadable(String className) {
        try {
            Class.forName(className, false, MicrometerPresence.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }
}
