package io.locked.internal.cdi;

import io.locked.internal.definition.SettingLookup;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * Where the {@code locked.*} settings come from: MicroProfile Config where the application has its API
 * and an implementation, and nowhere otherwise, so that annotation values and defaults apply (a plain
 * Weld SE application need not bring a config library). Which of the two is said once in the log.
 * {@code MicroProfileSettings} names Config's types, so it is only loaded once its API was found.
 * Public for lock-jpa, which reads its own keys the same way; not API.
 */
public final class ConfiguredSettings {
    private static final Logger LOG = Logger.getLogger(ConfiguredSettings.class.getName());
    private static final String CONFIG_API = "org.eclipse.microprofile.config.ConfigProvider";
    private static final boolean API_PRESENT = apiPresent();
    private static final AtomicBoolean ABSENCE_LOGGED = new AtomicBoolean();

    private ConfiguredSettings() {
    }

    /** @return MicroProfile Config's view for the calling thread's application, or a lookup that finds nothing */
    public static SettingLookup current() {
        if (!API_PRESENT) {
            logAbsence("MicroProfile Config is not on the class path");
            return SettingLookup.none();
        }
        Optional<SettingLookup> config = MicroProfileSettings.current();
        if (config.isEmpty()) {
            logAbsence("the MicroProfile Config API is on the class path, but no implementation of it");
        }
        return config.orElseGet(SettingLookup::none);
    }

    private static boolean apiPresent() {
        try {
            Class.forName(CONFIG_API, false, ConfiguredSettings.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    private static void logAbsence(String reason) {
        if (ABSENCE_LOGGED.compareAndSet(false, true)) {
            LOG.info(() -> "Locked: " + reason + ", so @Locked settings come from annotations and defaults only and"
                    + " locked.* keys are not read; to set them, add an implementation such as io.smallrye.config:smallrye-config");
        }
    }
}
