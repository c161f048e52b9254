package io.locked.it.weld;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * A MicroProfile Config source the scenario tests fill before they boot the container, and clear
 * after. Ordinal 500: above system properties and microprofile-config.properties.
 */
public class TestConfig implements ConfigSource {
    private static final Map<String, String> VALUES = new ConcurrentHashMap<>();

    /** Sets one property for the next container. */
    public static void set(String name, String value) {
        VALUES.put(name, value);
    }

    /** Forgets every property set by a test. */
    public static void clear() {
        VALUES.clear();
    }

    @Override
    public Set<String> getPropertyNames() {
        return Set.copyOf(VALUES.keySet());
    }

    @Override
    public String getValue(String propertyName) {
        return VALUES.get(propertyName);
    }

    @Override
    public String getName() {
        return "locked-scenario-tests";
    }

    @Override
    public int getOrdinal() {
        return 500;
    }
}
