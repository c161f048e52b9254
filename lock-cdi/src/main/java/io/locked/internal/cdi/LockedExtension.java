package io.locked.internal.cdi;

import io.locked.api.Locked;
import io.locked.internal.definition.LockedSettings;
import io.locked.internal.definition.Resolution;
import io.locked.internal.operations.StoreReadiness;
import io.locked.spi.LockRepository;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Vetoed;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.DefinitionException;
import jakarta.enterprise.inject.spi.DeploymentException;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.ProcessBean;
import jakarta.enterprise.inject.spi.WithAnnotations;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The portable extension (Weld, WildFly, Payara): checks every {@code @Locked} method while the
 * container boots, so misuse fails the deployment, and applies {@code locked.interceptor-priority}.
 * Runtime beans never reach this instance; they resolve the same settings on their own.
 */
public class LockedExtension implements Extension {
    private final List<String> errors = new ArrayList<>();
    private final List<LockedSettings> lockedMethods = new ArrayList<>();
    /** Every {@code @Locked} method seen, valid or not: what per-class and per-method config keys may name. */
    private final Set<Method> configTargets = new LinkedHashSet<>();
    private boolean lockedBeansSeen;
    private final List<Bean<?>> lockStoreBeans = new ArrayList<>();
    private final List<Bean<?>> readinessBeans = new ArrayList<>();

    void check(@Observes @WithAnnotations(Locked.class) ProcessAnnotatedType<?> event) {
        Class<?> beanClass = event.getAnnotatedType().getJavaClass();
        if (beanClass == LockedInterceptor.class) {
            return;
        }
        lockedBeansSeen = true;
        configTargets.addAll(LockedMethodScanner.beanMethods(beanClass));
        for (Resolution resolution : LockedMethodScanner.resolutionsOf(beanClass, ConfiguredSettings.current())) {
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
        InterceptorPriority.configured(ConfiguredSettings.current()).ifPresent(priority ->
                event.configureAnnotatedType()
                        .remove(annotation -> annotation.annotationType() == Priority.class)
                        .add(new PriorityLiteral(priority)));
    }

    void report(@Observes AfterBeanDiscovery event) {
        errors.forEach(message -> event.addDefinitionError(new DefinitionException(message)));
        errors.clear();
    }

    // A deployment that uses @Locked but has no usable lock store, or uses a mode its store cannot make
    // safe, should not boot and fail at the first call. Without a lock store bean that is known here;
    // the store itself is created once the application starts (LockStoreStartupCheck): servers inject
    // the application's resources (its @PersistenceUnit) only then, Payara not yet during validation.
    void storeDeclared(@Observes AfterDeploymentValidation event, BeanManager beans) {
        if (!lockedBeansSeen || !lockStoreBeans.isEmpty()) {
            return;
        }
        try {
            beans.createInstance().select(LockRepository.class).get().toString();
        } catch (RuntimeException noStore) {
            event.addDeploymentProblem(new DeploymentException(
                    "@Locked is used but its lock store cannot be created: " + noStore.getMessage(), noStore));
        }
    }

    // the startup check, added here so that it runs wherever this extension does
    void startupCheck(@Observes BeforeBeanDiscovery event) {
        event.addAnnotatedType(LockStoreStartupCheck.class, LockStoreStartupCheck.class.getName())
                .remove(annotation -> annotation.annotationType() == Vetoed.class)
                .add(ApplicationScoped.Literal.INSTANCE);
    }

    /**
     * Creates the lock store and checks that it can make every mode the {@code @Locked} methods use
     * safe; called once the application starts.
     *
     * @throws DeploymentException naming the store's failure or the methods of a refused mode
     */
    void verifyLockStore(BeanManager beans) {
        if (!lockedBeansSeen) {
            return;
        }
        LockRepository store;
        try {
            store = lockStore(beans);
            store.toString();
        } catch (RuntimeException noStore) {
            throw new DeploymentException("@Locked is used but its lock store cannot be created: " + noStore.getMessage(), noStore);
        }
        List<String> refusals = StoreRefusals.of(store, lockedMethods);
        if (!refusals.isEmpty()) {
            throw new DeploymentException(String.join("; ", refusals));
        }
    }

    // Payara gives each jar of WEB-INF/lib a bean manager of its own, and the extension's does not see
    // the lock store in lock-jpa's jar, though the beans that inject it do. So the store's bean is
    // noted while beans are discovered, and reached through that bean rather than by resolution.
    void noteLockStore(@Observes ProcessBean<?> event) {
        if (event.getBean().getTypes().contains(LockRepository.class)) {
            lockStoreBeans.add(event.getBean());
        }
        if (event.getBean().getTypes().contains(StoreReadiness.class)) {
            readinessBeans.add(event.getBean());
        }
    }

    /**
     * The store's readiness for the health check, which Payara puts in an archive that cannot resolve it.
     *
     * @throws IllegalStateException if there is not exactly one
     */
    public StoreReadiness storeReadiness(BeanManager beans) {
        if (readinessBeans.size() != 1) {
            throw new IllegalStateException("expected one StoreReadiness bean, found " + readinessBeans);
        }
        Bean<?> bean = readinessBeans.get(0);
        return (StoreReadiness) beans.getReference(bean, StoreReadiness.class, beans.createCreationalContext(bean));
    }

    private LockRepository lockStore(BeanManager beans) {
        if (lockStoreBeans.size() != 1) {
            return beans.createInstance().select(LockRepository.class).get(); // none, or the container resolves
        }
        Bean<?> bean = lockStoreBeans.get(0);
        return (LockRepository) beans.getReference(bean, LockRepository.class, beans.createCreationalContext(bean));
    }

    // A bad locked.cleanup.* value fails the deployment, not the first run a period later; a key
    // Locked does not read is a warning, not silence.
    void cleanupSettings(@Observes AfterDeploymentValidation event) {
        GlobalSettings.errors(ConfiguredSettings.current())
                .forEach(error -> event.addDeploymentProblem(new DeploymentException(error)));
        GlobalSettings.warnUnknownKeys(ConfiguredSettings.current(), configTargets);
    }
}
