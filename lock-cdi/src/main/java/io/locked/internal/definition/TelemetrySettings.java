package io.locked.internal.definition;

import java.util.Locale;

/**
 * Whether the CDI manager reports through OpenTelemetry, {@code locked.telemetry.enabled}, and what its
 * spans name a lock by, {@code locked.telemetry.key-attribute}: the rendered key, or only its name.
 *
 * @param enabled      spans and OpenTelemetry metrics on; off by default, as a wait span per lock is an
 *                     extra span per call that an operator should choose
 * @param renderedKeys spans carry the rendered key ({@code key}, the default), or only the name ({@code name})
 */
public record TelemetrySettings(boolean enabled, boolean renderedKeys) {
    public static final String ENABLED = "locked.telemetry.enabled";
    public static final String KEY_ATTRIBUTE = "locked.telemetry.key-attribute";

    /**
     * @param config where the keys are read
     * @throws IllegalArgumentException naming the key, for a value other than {@code true}/{@code false}
     *                                  or {@code key}/{@code name}
     */
    public static TelemetrySettings from(SettingLookup config) {
        String enabled = value(config, ENABLED, "false");
        if (!enabled.equals("true") && !enabled.equals("false")) {
            throw new IllegalArgumentException("Invalid " + ENABLED + ": must be true or false, was " + enabled);
        }
        String keys = value(config, KEY_ATTRIBUTE, "key");
        if (!keys.equals("key") && !keys.equals("name")) {
            throw new IllegalArgumentException("Invalid " + KEY_ATTRIBUTE
                    + ": must be key (spans carry the rendered key) or name (only the lock's name or template), was " + keys);
        }
        return new TelemetrySettings(enabled.equals("true"), keys.equals("key"));
    }

    private static String value(SettingLookup config, String key, String otherwise) {
        return config.get(key).filter(text -> !text.isBlank()).map(text -> text.trim().toLowerCase(Locale.ROOT))
                .orElse(otherwise);
    }
}
