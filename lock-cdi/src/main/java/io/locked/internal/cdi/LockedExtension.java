package io.locked.internal.cdi;

import io.locked.api.LockMode;
import io.locked.api.Locked;
import io.locked.internal.definition.CleanupSettings;
import io.locked.internal.definition.HealthSettings;
import io.locked.internal.definition.LockedSettings;
import io.locked.internal.definition.Resolution;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import io.locked.spi.LockRepository;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.DeploymentException;
import jakarta.enterprise.inject.spi.DefinitionException;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.WithAnnotations;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The portable extension (Weld, WildFly, Payara): checks every {@code @Locked} method while the
 * container boots, so misuse fails the deployment, and applies {@code locked.interceptor-priority}.
 * Runtime beans never reach this instance; they resolve the same settings on their own.
 */
public class LockedExtension implements Extension {
    private final List<String> errors = new ArrayList<>();
    private final List<LockedSettings> lockedMethods = new ArrayList<>();
    private boolean lockedBeansSeen;

    void check(@Observes @WithAnnotations(Locked.class) ProcessAnnotatedType<?> event) {
        Class<?> beanClass = event.getAnnotatedType().getJavaClass();
        if (beanClass == LockedInterceptor.class) {
            return;
        }
        lockedBeansSeen = true;
        for (Resolution resolution : LockedMethodScanner.resolutionsOf(beanClass, MicroProfileSettings.current())) {
            errors.addAll(resolution.errors());
            if (resolution.isValid()) {
                lockedMethods.add(resolution.settings());
            }
        }
    }

    // The readiness check is a bean only where MicroProfile Health is there to call it; its class names
    // the Health API, so the name is only loaded then.
    void healthCheck(@Observes BeforeBeanDiscovery event) {
        if (HealthCheckPresence.apiPresent()) {
            HealthCheckPresence.add(event);
        }
    }

    void priority(@Observes ProcessAnnotatedType<LockedInterceptor> event) {
        InterceptorPriority.configured(MicroProfileSettings.current()).ifPresent(priority ->
                event.configureAnnotatedType()
                        .remove(annotation -> annotation.annotationType() == Priority.class)
                        .add(new PriorityLiteral(priority)));
    }

    void report(@Observes AfterBeanDiscovery event) {
        errors.forEach(message -> event.addDefinitionError(new DefinitionException(message)));
        errors.clear();
    }

    // A deployment that uses @Locked but has no usable lock store, or uses a mode its store cannot make
    // safe, should not boot and fail at the first call.
    void storeReachable(@Observes AfterDeploymentValidation event, BeanManager beans) {
        if (!lockedBeansSeen) {
            return;
        }
        LockRepository store;
        try {
            store = beans.createInstance().select(LockRepository.class).get();
            store.toString();
        } catch (RuntimeException noStore) {
            event.addDeploymentProblem(new DeploymentException(
                    "@Locked is used but its lock store cannot be created: " + noStore.getMessage(), noStore));
            return;
        }
        Map<LockMode, List<String>> methodsByMode = new EnumMap<>(LockMode.class);
        for (LockedSettings method : lockedMethods) {
            methodsByMode.computeIfAbsent(method.mode(), mode -> new ArrayList<>()).add(method.method());
        }
        methodsByMode.forEach((mode, methods) -> store.refusal(mode).ifPresent(reason -> event.addDeploymentProblem(
                new DeploymentException("@Locked " + mode + " on " + String.join(", ", methods) + ": " + reason))));
    }

    // A bad locked.cleanup.* value fails the deployment, not the first run a period later.
    void cleanupSettings(@Observes AfterDeploymentValidation event) {
        try {
            CleanupSettings.from(MicroProfileSettings.current());
            HealthSettings.from(MicroProfileSettings.current());
        } catch (IllegalArgumentException invalid) {
            event.addDeploymentProblem(new DeploymentException(invalid.getMessage()));
        }
    }
}
