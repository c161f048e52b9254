package io.locked.internal.definition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CleanupSettingsTest {

    private static Optional<CleanupSettings> read(Map<String, String> config) {
        return CleanupSettings.from(name -> Optional.ofNullable(config.get(name)));
    }

    private static String refusal(Map<String, String> config) {
        return assertThrows(IllegalArgumentException.class, () -> read(config)).getMessage();
    }

    @Test
    void offUnlessEveryIsSet() {
        assertEquals(Optional.empty(), read(Map.of()));
        assertEquals(Optional.empty(), read(Map.of("locked.cleanup.every", " ")));
    }

    @Test
    void readsBothKeysInEitherDurationForm() {
        assertEquals(Optional.of(new CleanupSettings(Duration.ofHours(2), Duration.ofMinutes(5))),
                read(Map.of("locked.cleanup.every", "PT5M", "locked.cleanup.idle-after", "2h")));
        assertEquals(Optional.of(new CleanupSettings(Duration.ofMinutes(1), Duration.ofMillis(250))),
                read(Map.of("locked.cleanup.every", "250ms", "locked.cleanup.idle-after", "60s")));
    }

    @Test
    void idleAfterDefaultsToADay() {
        assertEquals(Optional.of(new CleanupSettings(Duration.ofDays(1), Duration.ofMinutes(10))),
                read(Map.of("locked.cleanup.every", "10m")));
    }

    @Test
    void refusesIdleAfterWithoutEvery() {
        String message = refusal(Map.of("locked.cleanup.idle-after", "1h"));
        assertTrue(message.contains("locked.cleanup.idle-after") && message.contains("locked.cleanup.every"), message);
    }

    @Test
    void refusesAnEveryThatIsNotAPositiveDuration() {
        for (String bad : new String[] {"0s", "PT0S", "five minutes", "-PT5M", "5"}) {
            String message = refusal(Map.of("locked.cleanup.every", bad));
            assertTrue(message.startsWith("Invalid locked.cleanup.every: "), message);
        }
    }

    @Test
    void refusesAnIdleAfterBelowAMinuteOrNotADuration() {
        for (String bad : new String[] {"59s", "0s", "a day", "-PT1H"}) {
            String message = refusal(Map.of("locked.cleanup.every", "1m", "locked.cleanup.idle-after", bad));
            assertTrue(message.startsWith("Invalid locked.cleanup.idle-after: "), message);
        }
    }
}
