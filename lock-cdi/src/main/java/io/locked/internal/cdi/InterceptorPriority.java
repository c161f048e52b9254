package io.locked.internal.cdi;

import io.locked.internal.definition.SettingLookup;
import jakarta.interceptor.Interceptor;
import java.util.Optional;

/**
 * Where {@code @Locked} sits among interceptors. The default, PLATFORM_BEFORE + 100, is before
 * {@code @Transactional} (PLATFORM_BEFORE + 200), so the lock is taken outside the business
 * transaction and released only after it committed.
 */
final class InterceptorPriority {
    static final int DEFAULT = Interceptor.Priority.PLATFORM_BEFORE + 100;
    static final String PROPERTY = "locked.interceptor-priority";

    private InterceptorPriority() {
    }

    static Optional<Integer> configured(SettingLookup config) {
        return config.get(PROPERTY).map(text -> {
            try {
                return Integer.valueOf(text.trim());
            } catch (NumberFormatException e) {
                throw new jakarta.enterprise.inject.spi.DefinitionException(
                        "Invalid " + PROPERTY + ": must be an integer, was '" + text + "'");
            }
        });
    }
}
