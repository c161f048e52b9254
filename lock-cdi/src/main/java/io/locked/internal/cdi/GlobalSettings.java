package io.locked.internal.cdi;

import io.locked.internal.definition.CleanupSettings;
import io.locked.internal.definition.ConfigTargets;
import io.locked.internal.definition.HandOverSettings;
import io.locked.internal.definition.HealthSettings;
import io.locked.internal.definition.LeadershipSettings;
import io.locked.internal.definition.LockedKeys;
import io.locked.internal.definition.SettingLookup;
import io.locked.internal.definition.ShutdownSettings;
import io.locked.internal.definition.TelemetrySettings;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;
import java.util.logging.Logger;

/** The checks of Locked's settings beside the {@code @Locked} members, shared by every way Locked starts. */
final class GlobalSettings {
    private static final Logger LOG = Logger.getLogger(GlobalSettings.class.getName());

    private GlobalSettings() {
    }

    /** @return what is wrong with the cleanup's, readiness check's, shutdown's, hand-over's, leadership's and telemetry's settings, each naming its key */
    static List<String> errors(SettingLookup config) {
        List<Consumer<SettingLookup>> checks = List.of(CleanupSettings::from, HealthSettings::from, ShutdownSettings::from,
                HandOverSettings::from, LeadershipSettings::from, TelemetrySettings::from);
        List<String> errors = new ArrayList<>();
        for (Consumer<SettingLookup> check : checks) {
            try {
                check.accept(config);
            } catch (IllegalArgumentException invalid) {
                errors.add(invalid.getMessage());
            }
        }
        return errors;
    }

    /**
     * @param lockedMethods the deployment's {@code @Locked} methods, which per-class and per-method keys must name
     * @return the warnings, each logged, about {@code locked.*} keys that Locked does not read
     */
    static List<String> warnUnknownKeys(SettingLookup config, Collection<Method> lockedMethods) {
        List<String> warnings = new ArrayList<>(LockedKeys.unknown(config.names()));
        warnings.addAll(new ConfigTargets(lockedMethods).unknown(config.names()));
        warnings.forEach(LOG::warning);
        return warnings;
    }
}
