package io.locked.internal.cdi;

import io.locked.internal.definition.SettingLookup;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.spi.ConfigSource;

/** Reads {@code locked.*} overrides from MicroProfile Config. */
final class MicroProfileSettings implements SettingLookup {
    private final Config config;

    private MicroProfileSettings(Config config) {
        this.config = config;
    }

    static MicroProfileSettings current() {
        return new MicroProfileSettings(ConfigProvider.getConfig(Thread.currentThread().getContextClassLoader()));
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
