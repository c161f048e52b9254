package io.locked.internal.cdi.health;

import io.locked.internal.cdi.LockedExtension;
import io.locked.internal.operations.StoreReadiness;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * The MicroProfile Health readiness check "locked": up when the lock store answers and has its table
 * and the lease watchdog runs; down, with what failed, otherwise, answered within
 * {@code locked.health.timeout} even when the database hangs. Not a bean by itself: the extensions
 * add it (application-scoped) only where the MicroProfile Health API is on the class path, so that
 * Locked does not need it.
 */
@Readiness
public class LockStoreReadinessCheck implements HealthCheck {
    public static final String NAME = "locked";
    private final BeanManager beans;
    private volatile StoreReadiness readiness;

    @Inject
    public LockStoreReadinessCheck(BeanManager beans) {
        this.beans = beans;
    }

    // Looked up at the first call rather than injected: Payara puts a bean added by an extension in an
    // archive of its own, which does not see lock-cdi's producers; the extension noted the bean.
    private StoreReadiness readiness() {
        StoreReadiness known = readiness;
        if (known == null) {
            Instance<StoreReadiness> resolved = beans.createInstance().select(StoreReadiness.class);
            known = resolved.isResolvable() ? resolved.get() : beans.getExtension(LockedExtension.class).storeReadiness(beans);
            readiness = known;
        }
        return known;
    }

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder response = HealthCheckResponse.named(NAME);
        StoreReadiness.Report report;
        try {
            report = readiness().check();
        } catch (RuntimeException noStore) {
            // the lock store could not be created (its unit, its settings): no lock can be taken
            return response.down().withData("store", "cannot be created: " + noStore.getMessage()).build();
        }
        report.data().forEach(response::withData);
        return response.status(report.up()).build();
    }

}
