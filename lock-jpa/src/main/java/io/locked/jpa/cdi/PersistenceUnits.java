package io.locked.jpa.cdi;

import jakarta.enterprise.inject.Instance;
import jakarta.persistence.EntityManagerFactory;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Finds a persistence unit by name among the container's {@code EntityManagerFactory} beans: a bean
 * qualified by the unit's name, as Quarkus qualifies each unit's factory
 * ({@code @io.quarkus.hibernate.orm.PersistenceUnit("name")}) and as {@code @Named("name")} does.
 * Read reflectively: Locked does not depend on Quarkus.
 */
final class PersistenceUnits {
    private static final Set<String> NAMING_QUALIFIERS = Set.of("PersistenceUnit", "Named");

    private PersistenceUnits() {
    }

    /**
     * @param units every factory bean ({@code @Any}): an injected {@code Instance} also keeps Quarkus from
     *              removing the factory beans as unused
     * @throws IllegalStateException if more than one bean carries the name
     */
    static Optional<EntityManagerFactory> beanNamed(Instance<EntityManagerFactory> units, String unit) {
        List<? extends Instance.Handle<EntityManagerFactory>> named = units.handlesStream()
                .filter(handle -> handle.getBean().getQualifiers().stream().anyMatch(qualifier -> names(qualifier, unit)))
                .toList();
        if (named.size() > 1) {
            throw new IllegalStateException("More than one EntityManagerFactory bean is named '" + unit + "': "
                    + named.stream().map(handle -> handle.getBean().toString()).toList());
        }
        return named.stream().findFirst().map(handle -> handle.get());
    }

    private static boolean names(Annotation qualifier, String unit) {
        if (!NAMING_QUALIFIERS.contains(qualifier.annotationType().getSimpleName())) {
            return false;
        }
        try {
            Method value = qualifier.annotationType().getMethod("value");
            return unit.equals(value.invoke(qualifier));
        } catch (ReflectiveOperationException | RuntimeException noName) {
            return false;
        }
    }
}
