package io.locked.internal.cdi;

import io.locked.internal.definition.SettingLookup;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

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
}
