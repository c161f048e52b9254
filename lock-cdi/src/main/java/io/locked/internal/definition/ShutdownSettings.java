package io.locked.internal.definition;

import java.time.Duration;

/**
 * How the CDI manager ends with its application, {@code locked.shutdown.drain}: how long it lets the
 * locks still held be released before it stops renewing them.
 *
 * @param drain the bound, zero or positive
 */
public record ShutdownSettings(Duration drain) {
    public static final String DRAIN = "locked.shutdown.drain";
    /** Long enough for a short job to finish, short of the usual 30 s a container gives a stopping pod. */
    public static final Duration DEFAULT_DRAIN = Duration.ofSeconds(10);

    public ShutdownSettings {
        if (drain == null || drain.isNegative()) {
            throw new IllegalArgumentException("Invalid " + DRAIN + ": must be zero or positive, was " + Durations.text(drain));
        }
    }

    /**
     * @param config where the key is read
     * @throws IllegalArgumentException naming the key, for a value that is not a duration of zero or more
     */
    public static ShutdownSettings from(SettingLookup config) {
        return new ShutdownSettings(Durations.setting(config, DRAIN, DEFAULT_DRAIN));
    }
}
