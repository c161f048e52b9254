package io.locked.internal.cdi;

import io.locked.internal.cdi.health.LockStoreReadinessCheck;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;

/**
 * Adds the readiness check where MicroProfile Health is present. The check's class is named here as
 * text, and only touched once the API was found, so that the extensions load without it.
 */
final class HealthCheckPresence {
    static final String CHECK_CLASS = "io.locked.internal.cdi.health.LockStoreReadinessCheck";

    private HealthCheckPresence() {
    }

    static boolean apiPresent() {
        try {
            Class.forName("org.eclipse.microprofile.health.HealthCheck", false, HealthCheckPresence.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    static void add(BeforeBeanDiscovery event) {
        event.addAnnotatedType(LockStoreReadinessCheck.class, CHECK_CLASS).add(ApplicationScoped.Literal.INSTANCE);
    }
}
