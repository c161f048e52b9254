package io.locked.internal.cdi;

import io.locked.internal.definition.LockedDefinitions;
import io.locked.internal.definition.Resolution;
import io.locked.internal.definition.SettingLookup;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Finds every method of a bean class that {@code @Locked} reaches and checks each one. */
final class LockedMethodScanner {
    private LockedMethodScanner() {
    }

    /** @return the definition errors of the class, empty when every locked method resolves */
    static List<String> errorsOf(Class<?> beanClass, SettingLookup config) {
        List<String> errors = new ArrayList<>();
        for (Resolution resolution : resolutionsOf(beanClass, config)) {
            errors.addAll(resolution.errors());
        }
        return errors;
    }

    /** @return the resolved settings of every locked method of the class, valid or not */
    static List<Resolution> resolutionsOf(Class<?> beanClass, SettingLookup config) {
        List<Resolution> resolutions = new ArrayList<>();
        if (beanClass.isInterface() || Modifier.isAbstract(beanClass.getModifiers())) {
            return resolutions; // checked through the concrete beans that inherit them
        }
        for (Method method : lockedMethods(beanClass)) {
            resolutions.add(LockedDefinitions.resolve(beanClass, method, config));
        }
        return resolutions;
    }

    /** @return the locked methods of a bean class, none for an interface or abstract class (its beans bring them) */
    static List<Method> beanMethods(Class<?> beanClass) {
        if (beanClass.isInterface() || Modifier.isAbstract(beanClass.getModifiers())) {
            return List.of();
        }
        return lockedMethods(beanClass);
    }

    /** Methods of the class and its superclasses that carry {@code @Locked} or inherit it from the class. */
    static List<Method> lockedMethods(Class<?> beanClass) {
        List<Method> found = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        boolean classLocked = beanClass.isAnnotationPresent(io.locked.api.Locked.class);
        for (Class<?> type = beanClass; type != null && type != Object.class; type = type.getSuperclass()) {
            for (Method method : type.getDeclaredMethods()) {
                String signature = method.getName() + java.util.Arrays.toString(method.getParameterTypes());
                if (!seen.add(signature)) {
                    continue; // overridden further down
                }
                if (LockedDefinitions.isOnMethod(method)
                        || classLocked && LockedDefinitions.isBusinessMethod(method)) {
                    found.add(method);
                }
            }
        }
        return found;
    }
}
