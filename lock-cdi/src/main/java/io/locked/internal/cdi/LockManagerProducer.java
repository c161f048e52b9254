package io.locked.internal.cdi;

import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.internal.DefaultLockManager;
import io.locked.internal.definition.HandOverSettings;
import io.locked.internal.definition.HealthSettings;
import io.locked.internal.definition.SettingLookup;
import io.locked.internal.definition.ShutdownSettings;
import io.locked.internal.definition.TelemetrySettings;
import io.locked.internal.metrics.MicrometerPresence;
import io.locked.internal.operations.StoreReadiness;
import io.locked.internal.telemetry.TelemetryPresence;
import io.locked.spi.LockRepository;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Shutdown;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.interceptor.Interceptor;
import java.util.logging.Logger;

/**
 * The application's {@link LockManager}, on whatever {@link LockRepository} bean the deployment has
 * (lock-jpa supplies one), with metrics on the application's Micrometer {@code MeterRegistry} bean, or
 * on Micrometer's global registry when there is none, or none without Micrometer; and, when
 * {@code locked.telemetry.enabled} and the OpenTelemetry API is there, with spans and metrics on the
 * application's {@code OpenTelemetry} bean, or on {@code GlobalOpenTelemetry} when there is none.
 */
@ApplicationScoped
public class LockManagerProducer {
    private static final Logger LOG = Logger.getLogger(LockManagerProducer.class.getName());
    private volatile DefaultLockManager built;

    // Instance<Object>, not Instance<MeterRegistry>: the injection point must name neither Micrometer's type nor OpenTelemetry's
    @Produces
    @ApplicationScoped
    LockManager lockManager(LockRepository repository, Instance<Object> beans) {
        SettingLookup config = ConfiguredSettings.current();
        HandOverSettings handOvers = HandOverSettings.from(config);
        LockManagerBuilder builder = LockManagerBuilder.on(repository)
                .drainOnClose(ShutdownSettings.from(config).drain())
                .handOverRowsFor(handOvers.rowRun())
                .keepLeasesFor(handOvers.leaseKeep());
        if (MicrometerPresence.onClassPath()) {
            builder.meterRegistry(MeterRegistryLookup.registry(beans));
        }
        TelemetrySettings telemetry = TelemetrySettings.from(config);
        if (telemetry.enabled()) {
            if (TelemetryPresence.onClassPath()) {
                builder.openTelemetry(OpenTelemetryLookup.openTelemetry(beans), telemetry.renderedKeys());
            } else {
                LOG.warning(() -> "Locked: " + TelemetrySettings.ENABLED + " is true but the OpenTelemetry API"
                        + " (io.opentelemetry:opentelemetry-api) is not on the class path: no spans");
            }
        }
        LockManager manager = builder.build();
        built = (DefaultLockManager) manager;
        return manager;
    }

    /** The readiness of the store and of the manager's watchdog, for the MicroProfile Health check. */
    @Produces
    StoreReadiness readiness(LockRepository repository, LockManager manager) {
        manager.current(); // creates the manager behind its client proxy, whose watchdog the check watches
        DefaultLockManager watched = built;
        return new StoreReadiness(repository, watched::watchdogAlive,
                HealthSettings.from(ConfiguredSettings.current()).timeout());
    }

    void close(@Disposes StoreReadiness readiness) {
        readiness.close();
    }

    void close(@Disposes LockManager manager) {
        manager.close();
    }

    /**
     * Closes the manager while the application is still whole: holders that finish within the drain
     * release through the store, fire their events and log as at any time, which they could not once
     * the container had begun destroying beans. Readiness is down from here on.
     */
    void drain(@Observes @BeforeDestroyed(ApplicationScoped.class) Object ending) {
        DefaultLockManager manager = built;
        if (manager != null) {
            manager.close();
        }
    }

    /**
     * The same, as early as the container says it is stopping (CDI 4's {@code Shutdown} event: Quarkus
     * fires it before it closes the application's persistence units, whose holders must still write
     * and commit while they finish), and before the application's own shutdown observers.
     */
    void drainFirst(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) Shutdown stopping) {
        drain(stopping);
    }
}
