package io.locked.internal.cdi;

import io.locked.internal.definition.LockedDefinitions;
import io.locked.internal.definition.LockedSettings;
import io.locked.internal.definition.Resolution;
import io.locked.internal.definition.SettingLookup;
import jakarta.enterprise.context.ApplicationScoped;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The settings of every {@code @Locked} method, resolved once per (bean class, method) and then
 * only looked up. Independent of the extension instance, so Quarkus and Weld share it.
 */
@ApplicationScoped
public class LockedMethods {
    private final ClassValue<Map<Method, LockedSettings>> byBeanClass = new ClassValue<>() {
        @Override
        protected Map<Method, LockedSettings> computeValue(Class<?> type) {
            return new ConcurrentHashMap<>();
        }
    };
    private SettingLookup config;

    /**
     * @param beanClass the intercepted instance's class
     * @param method    the intercepted method
     * @return its settings
     */
    public LockedSettings settings(Class<?> beanClass, Method method) {
        LockedSettings settings = byBeanClass.get(beanClass).get(method);
        return settings != null ? settings : byBeanClass.get(beanClass).computeIfAbsent(method, m -> resolve(beanClass, m));
    }

    private LockedSettings resolve(Class<?> beanClass, Method method) {
        Resolution resolution = LockedDefinitions.resolve(beanClass, method, config());
        if (!resolution.isValid()) {
            // normally refused at deployment; reached only where no extension ran
            throw new IllegalStateException(String.join("; ", resolution.errors()));
        }
        return resolution.settings();
    }

    private synchronized SettingLookup config() {
        if (config == null) {
            config = ConfiguredSettings.current();
        }
        return config;
    }
}
