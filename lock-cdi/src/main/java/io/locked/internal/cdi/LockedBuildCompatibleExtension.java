package io.locked.internal.cdi;

import io.locked.api.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.build.compatible.spi.Discovery;
import jakarta.enterprise.inject.build.compatible.spi.ScannedClasses;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.build.compatible.spi.BuildCompatibleExtension;
import jakarta.enterprise.inject.build.compatible.spi.ClassConfig;
import jakarta.enterprise.inject.build.compatible.spi.Enhancement;
import jakarta.enterprise.inject.build.compatible.spi.Messages;
import jakarta.enterprise.inject.build.compatible.spi.SkipIfPortableExtensionPresent;
import jakarta.enterprise.inject.build.compatible.spi.Validation;
import jakarta.enterprise.lang.model.declarations.ClassInfo;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The build-compatible extension (Quarkus and other CDI Lite containers): the same checks as
 * {@link LockedExtension}, through the same {@link LockedMethodScanner}, and the same
 * {@code locked.interceptor-priority}. Skipped where the portable extension runs.
 */
@SkipIfPortableExtensionPresent(LockedExtension.class)
public class LockedBuildCompatibleExtension implements BuildCompatibleExtension {
    private final Set<String> lockedClasses = new LinkedHashSet<>();

    @Enhancement(types = Object.class, withSubtypes = true, withAnnotations = Locked.class)
    public void collect(ClassInfo type) {
        if (!type.name().equals(LockedInterceptor.class.getName())) {
            lockedClasses.add(type.name());
        }
    }

    // the readiness check, only where MicroProfile Health is there to call it (SmallRye Health on Quarkus);
    // and the check of this run's configuration and lock store, which the build cannot do
    @Discovery
    public void healthCheck(ScannedClasses classes) {
        if (HealthCheckPresence.apiPresent()) {
            classes.add(HealthCheckPresence.CHECK_CLASS);
        }
        classes.add(RuntimeStartupCheck.class.getName());
    }

    @Enhancement(types = Object.class, withSubtypes = true)
    public void healthCheckScope(ClassConfig type) {
        if (type.info().name().equals(HealthCheckPresence.CHECK_CLASS)) {
            type.addAnnotation(ApplicationScoped.class);
        }
    }

    @Enhancement(types = LockedInterceptor.class)
    public void priority(ClassConfig interceptor) {
        InterceptorPriority.configured(ConfiguredSettings.current()).ifPresent(priority -> {
            interceptor.removeAnnotation(annotation -> annotation.name().equals(Priority.class.getName()));
            interceptor.addAnnotation(new PriorityLiteral(priority));
        });
    }

    // The checks read the classes by reflection, like the portable extension; at build time the
    // application's classes are loadable from the context class loader.
    @Validation
    public void validate(Messages messages) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        List<Method> configTargets = new ArrayList<>();
        for (String name : lockedClasses) {
            Class<?> beanClass;
            try {
                beanClass = Class.forName(name, false, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                messages.error("Cannot check @Locked on " + name + ": the class cannot be loaded (" + e + ")");
                continue;
            }
            LockedMethodScanner.errorsOf(beanClass, ConfiguredSettings.current()).forEach(messages::error);
            configTargets.addAll(LockedMethodScanner.beanMethods(beanClass));
        }
        GlobalSettings.warnUnknownKeys(ConfiguredSettings.current(), configTargets);
    }

    @Validation
    public void cleanupSettings(Messages messages) {
        GlobalSettings.errors(ConfiguredSettings.current()).forEach(messages::error);
    }
}
