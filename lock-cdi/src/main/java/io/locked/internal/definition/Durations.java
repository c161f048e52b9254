package io.locked.internal.definition;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses durations as users write them: ISO-8601 ({@code PT5S}) or a number with a unit ({@code 250ms}). */
public final class Durations {
    private static final Pattern NUMBER_WITH_UNIT = Pattern.compile("(\\d+)\\s*(ns|us|ms|s|m|h|d)");

    private Durations() {
    }

    /**
     * @param text the duration text
     * @return the duration
     * @throws IllegalArgumentException naming the text when it is neither form
     */
    public static Duration parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("a duration is required, was '" + text + "'");
        }
        String trimmed = text.trim();
        if (trimmed.length() > 1 && trimmed.charAt(0) == '-' && Character.isDigit(trimmed.charAt(1))) {
            parse(trimmed.substring(1)); // a duration but for its sign: say that it is negative
            throw new IllegalArgumentException("'" + text + "' is negative");
        }
        if (trimmed.charAt(0) == 'P' || trimmed.charAt(0) == 'p' || trimmed.charAt(0) == '-') {
            try {
                return Duration.parse(trimmed.toUpperCase(Locale.ROOT));
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("'" + text + "' is not an ISO-8601 duration such as PT5S");
            }
        }
        Matcher matcher = NUMBER_WITH_UNIT.matcher(trimmed.toLowerCase(Locale.ROOT));
        if (!matcher.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration: use PT5S or a number with a unit"
                    + " (ns, us, ms, s, m, h, d) such as 250ms or 5s");
        }
        long amount;
        try {
            amount = Long.parseLong(matcher.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is too large a duration");
        }
        try {
            return ofUnit(amount, matcher.group(2));
        } catch (ArithmeticException overflow) {
            throw new IllegalArgumentException("'" + text + "' is too large a duration");
        }
    }

    /**
     * @param config   where the key is read
     * @param key      a global key whose value is a duration
     * @param fallback what an unset or blank key means
     * @return the key's duration
     * @throws IllegalArgumentException naming the key, for a value that is not a duration
     */
    static Duration setting(SettingLookup config, String key, Duration fallback) {
        String text = config.get(key).filter(value -> !value.isBlank()).orElse(null);
        if (text == null) {
            return fallback;
        }
        try {
            return parse(text);
        } catch (ArithmeticException | IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid " + key + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param duration a duration, or null
     * @return it as a user writes one: {@code 0s}, {@code 500ms}, {@code 1m30s}, {@code -5s}; {@code none} for null
     */
    public static String text(Duration duration) {
        if (duration == null) {
            return "none";
        }
        if (duration.isZero()) {
            return "0s";
        }
        if (duration.isNegative()) {
            return "-" + text(duration.negated());
        }
        StringBuilder text = new StringBuilder();
        part(text, duration.toDaysPart(), "d");
        part(text, duration.toHoursPart(), "h");
        part(text, duration.toMinutesPart(), "m");
        part(text, duration.toSecondsPart(), "s");
        int nanos = duration.toNanosPart();
        part(text, nanos / 1_000_000, "ms");
        part(text, nanos / 1_000 % 1_000, "us");
        part(text, nanos % 1_000, "ns");
        return text.toString();
    }

    private static void part(StringBuilder text, long amount, String unit) {
        if (amount != 0) {
            text.append(amount).append(unit);
        }
    }

    private static Duration ofUnit(long amount, String unit) {
        return switch (unit) {
            case "ns" -> Duration.ofNanos(amount);
            case "us" -> Duration.ofNanos(Math.multiplyExact(amount, 1000L));
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofDays(amount);
        };
    }
}
