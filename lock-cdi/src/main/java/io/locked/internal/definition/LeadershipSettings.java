package io.locked.internal.definition;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The roles the CDI application campaigns for at start-up: {@code locked.leadership.roles}, a
 * comma-separated list (none by default), each with the lease {@code locked.leadership.lease}.
 *
 * @param roles the roles' names
 * @param lease each role's lease: a killed leader is replaced once it has run out
 */
public record LeadershipSettings(List<String> roles, Duration lease) {
    public static final String ROLES = "locked.leadership.roles";
    public static final String LEASE = "locked.leadership.lease";
    /** Short enough for a quick takeover, long enough that a GC pause does not end a term. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(10);

    /**
     * @param config where the keys are read
     * @throws IllegalArgumentException naming the key, for a lease that is not a positive duration
     */
    public static LeadershipSettings from(SettingLookup config) {
        List<String> roles = config.get(ROLES).map(text -> Arrays.stream(text.split(",")).map(String::trim)
                .filter(role -> !role.isEmpty()).distinct().toList()).orElse(List.of());
        Duration lease = DEFAULT_LEASE;
        String text = config.get(LEASE).filter(value -> !value.isBlank()).orElse(null);
        if (text != null) {
            try {
                lease = Durations.parse(text);
            } catch (ArithmeticException | IllegalArgumentException e) {
                throw new IllegalArgumentException("Invalid " + LEASE + ": " + e.getMessage(), e);
            }
            if (lease.toMillis() < 1) {
                throw new IllegalArgumentException("Invalid " + LEASE + ": must be at least 1ms, was " + text.trim());
            }
        }
        return new LeadershipSettings(roles, lease);
    }
}
