package io.locked.internal.cdi;

import io.locked.api.Locked;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.DefinitionException;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.WithAnnotations;
import java.util.ArrayList;
import java.util.List;

/**
 * The portable extension (Weld, WildFly, Payara): checks every {@code @Locked} method while the
 * container boots, so misuse fails the deployment, and applies {@code locked.interceptor-priority}.
 * Runtime beans never reach this instance; they resolve the same settings on their own.
 */
public class LockedExtension implements Extension {
    private final List<String> errors = new ArrayList<>();

    void check(@Observes @WithAnnotations(Locked.class) ProcessAnnotatedType<?> event) {
        Class<?> beanClass = event.getAnnotatedType().getJavaClass();
        if (beanClass == LockedInterceptor.class) {
            return;
        }
        errors.addAll(LockedMethodScanner.errorsOf(beanClass, MicroProfileSettings.current()));
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
}
