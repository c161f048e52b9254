package io.locked.internal.cdi;

import io.locked.internal.definition.SettingLookup;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.eclipse.microprofile.config.spi.ConfigSource;

/** Reads {@code locked.*} overrides from MicroProfile Config; loaded only where its API is present. */
final class MicroProfileSettings implements SettingLookup {
    private final Config config;

    private MicroProfileSettings(Config config) {
        this.config = config;
    }

    /** @return the calling thread's application's config, or empty if the API has no implementation */
    static Optional<SettingLookup> current() {
        ConfigProviderResolver resolver;
        try {
            resolver = ConfigProviderResolver.instance();
        } catch (IllegalStateException noImplementation) { // the API's "No ConfigProviderResolver implementation found!"
            return Optional.empty();
        }
        return Optional.of(new MicroProfileSettings(resolver.getConfig(Thread.currentThread().getContextClassLoader())));
    }

    @Override
    public Optional<String> get(String name) {
        return config.getOptionalValue(name, String.class);
    }

    // from each source, as it is now: a Config may keep the names it saw when it was built
    @Override
    public Iterable<String> names() {
        Set<String> names = new TreeSet<>();
        for (ConfigSource source : config.getConfigSources()) {
            names.addAll(source.getPropertyNames());
        }
        return names;
    }
}
