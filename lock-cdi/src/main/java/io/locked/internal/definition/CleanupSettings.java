package io.locked.internal.definition;

import java.time.Duration;
import java.util.Optional;

/**
 * The scheduled cleanup of idle lock rows, from {@code locked.cleanup.every} (which turns it on) and
 * {@code locked.cleanup.idle-after}.
 *
 * @param idleAfter how long a free row must have gone unacquired before it is deleted
 * @param every     how often a run starts, the first one a period after start-up
 */
public record CleanupSettings(Duration idleAfter, Duration every) {
    public static final String EVERY = "locked.cleanup.every";
    public static final String IDLE_AFTER = "locked.cleanup.idle-after";
    /** Rows not acquired for a day are deleted unless {@value #IDLE_AFTER} says otherwise. */
    public static final Duration DEFAULT_IDLE_AFTER = Duration.ofDays(1);
    /**
     * A held row is never deleted whatever the setting; the floor keeps rows of keys in steady use
     * from being deleted and created again over and over.
     */
    public static final Duration MIN_IDLE_AFTER = Duration.ofMinutes(1);

    public CleanupSettings {
        if (every == null || every.isNegative() || every.isZero()) {
            throw new IllegalArgumentException("Invalid " + EVERY + ": must be positive, was " + Durations.text(every));
        }
        if (idleAfter == null || idleAfter.compareTo(MIN_IDLE_AFTER) < 0) {
            throw new IllegalArgumentException("Invalid " + IDLE_AFTER + ": must be at least " + Durations.text(MIN_IDLE_AFTER)
                    + ", was " + Durations.text(idleAfter));
        }
    }

    /**
     * @param config where the two keys are read
     * @return the settings, or empty when the cleanup is off ({@value #EVERY} not set)
     * @throws IllegalArgumentException naming the key, for a value that is not a duration, out of
     *                                  range, or {@value #IDLE_AFTER} set without {@value #EVERY}
     */
    public static Optional<CleanupSettings> from(SettingLookup config) {
        Optional<String> every = config.get(EVERY).filter(text -> !text.isBlank());
        Optional<String> idleAfter = config.get(IDLE_AFTER).filter(text -> !text.isBlank());
        if (every.isEmpty()) {
            if (idleAfter.isPresent()) {
                throw new IllegalArgumentException(IDLE_AFTER + " is set but " + EVERY
                        + " is not: the cleanup runs only when " + EVERY + " is set");
            }
            return Optional.empty();
        }
        return Optional.of(new CleanupSettings(Durations.setting(config, IDLE_AFTER, DEFAULT_IDLE_AFTER),
                Durations.setting(config, EVERY, null)));
    }
}
