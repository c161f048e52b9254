package io.locked.internal.definition;

import java.util.Optional;

/** Where overrides come from (MicroProfile Config in a container, a map in tests). */
@FunctionalInterface
public interface SettingLookup {

    /**
     * @param name the full property name, e.g. {@code locked."com.acme.Jobs/nightly".max-wait}
     * @return its value, if set
     */
    Optional<String> get(String name);

    /** @return every property name there is, for the warning about unknown {@code locked.*} keys; none by default */
    default Iterable<String> names() {
        return java.util.List.of();
    }

    /** @return a lookup that finds nothing: annotation values only */
    static SettingLookup none() {
        return name -> Optional.empty();
    }
}
