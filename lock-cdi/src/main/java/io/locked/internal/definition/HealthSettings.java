package io.locked.internal.definition;

import java.time.Duration;

/**
 * The readiness check's bound, {@code locked.health.timeout}: how long the check waits for the lock
 * store before it reports it down.
 *
 * @param timeout the bound, positive
 */
public record HealthSettings(Duration timeout) {
    public static final String TIMEOUT = "locked.health.timeout";
    /** Well inside the usual readiness probe's own timeout (Kubernetes: 1 s by default, often raised). */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

    public HealthSettings {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("Invalid " + TIMEOUT + ": must be positive, was " + Durations.text(timeout));
        }
    }

    /**
     * @param config where the key is read
     * @throws IllegalArgumentException naming the key, for a value that is not a positive duration
     */
    public static HealthSettings from(SettingLookup config) {
        return new HealthSettings(Durations.setting(config, TIMEOUT, DEFAULT_TIMEOUT));
    }
}
