package io.locked.internal.cdi;

import io.locked.api.LockStoreUnavailableException;
import io.locked.internal.definition.LockedSettings;
import io.locked.internal.definition.Resolution;
import io.locked.internal.definition.SettingLookup;
import io.locked.spi.LockRepository;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.DeploymentException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.logging.Logger;

/**
 * What a CDI Lite container (Quarkus) checks when the application starts, with the configuration of
 * that run: its build checked {@code @Locked} against the build's configuration only, and a value
 * given at run time ({@code -D}, an environment variable) would otherwise fail every call. Refuses
 * the start, naming each key, for a bad {@code @Locked} override or setting; warns about
 * {@code locked.*} keys Locked does not read; and creates the lock store, so that one it cannot
 * create (no lock table, a refused mode, a bad store setting) refuses the start too. A database
 * that does not answer is a warning only: readiness is down, and the store is created at the next
 * lock once it answers.
 *
 * <p>Added by {@link LockedBuildCompatibleExtension} only; Weld, WildFly and Payara check the same
 * while they deploy ({@link LockedExtension}, {@link LockStoreStartupCheck}), and there it is no bean.
 */
public class RuntimeStartupCheck {
    private static final Logger LOG = Logger.getLogger(RuntimeStartupCheck.class.getName());

    void started(@Observes Startup startup, BeanManager beans) {
        SettingLookup config = ConfiguredSettings.current();
        List<String> errors = new ArrayList<>(GlobalSettings.errors(config));
        List<LockedSettings> methods = new ArrayList<>();
        List<Method> configTargets = new ArrayList<>();
        for (Class<?> beanClass : beanClasses(beans)) {
            configTargets.addAll(LockedMethodScanner.beanMethods(beanClass));
            for (Resolution resolution : LockedMethodScanner.resolutionsOf(beanClass, config)) {
                errors.addAll(resolution.errors());
                if (resolution.isValid()) {
                    methods.add(resolution.settings());
                }
            }
        }
        GlobalSettings.warnUnknownKeys(config, configTargets);
        if (!errors.isEmpty()) {
            throw new DeploymentException("Locked's configuration of this run is invalid: " + String.join("; ", errors));
        }
        if (!methods.isEmpty()) {
            verifyStore(beans, methods);
        }
    }

    private static Set<Class<?>> beanClasses(BeanManager beans) {
        Set<Class<?>> classes = new LinkedHashSet<>();
        for (Bean<?> bean : beans.getBeans(Object.class, Any.Literal.INSTANCE)) {
            classes.add(bean.getBeanClass());
        }
        return classes;
    }

    private static void verifyStore(BeanManager beans, List<LockedSettings> methods) {
        LockRepository store;
        try {
            store = beans.createInstance().select(LockRepository.class).get();
            store.toString(); // created behind its client proxy
        } catch (RuntimeException failure) {
            LockStoreUnavailableException down = unavailable(failure);
            if (down != null) {
                LOG.warning(() -> "Locked could not create its lock store at start-up: the database does not answer ("
                        + down.getMessage() + "). Readiness is down until it does; the store is created at the next lock.");
                return;
            }
            throw new DeploymentException("@Locked is used but its lock store cannot be created: " + failure.getMessage(), failure);
        }
        List<String> refusals = StoreRefusals.of(store, methods);
        if (!refusals.isEmpty()) {
            throw new DeploymentException(String.join("; ", refusals));
        }
    }

    private static LockStoreUnavailableException unavailable(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof LockStoreUnavailableException down) {
                return down;
            }
        }
        return null;
    }
}
