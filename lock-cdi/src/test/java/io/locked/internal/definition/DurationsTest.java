package io.locked.internal.definition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

    @Test
    void readsIsoAndNumberWithUnit() {
        assertEquals(Duration.ofSeconds(5), Durations.parse("PT5S"));
        assertEquals(Duration.ofSeconds(5), Durations.parse("pt5s"));
        assertEquals(Duration.ofMillis(250), Durations.parse("250ms"));
        assertEquals(Duration.ofSeconds(5), Durations.parse(" 5 s "));
        assertEquals(Duration.ofMinutes(2), Durations.parse("2m"));
        assertEquals(Duration.ofHours(1), Durations.parse("1h"));
        assertEquals(Duration.ofDays(1), Durations.parse("1d"));
        assertEquals(Duration.ofNanos(500_000), Durations.parse("500us"));
        assertEquals(Duration.ZERO, Durations.parse("0s"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"5", "five seconds", "5 parsecs", "PT", "-5s", "1.5s", "99999999999999999999s",
            "9999999999999999d", "99999999999999999us", "9223372036854775807m", "PT9999999999999999999H"})
    void refusesAnythingElseNamingTheText(String text) {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> Durations.parse(text));
        assertTrue(error.getMessage().contains("'" + text + "'"), error.getMessage());
    }

    @Test
    void refusesBlank() {
        assertThrows(IllegalArgumentException.class, () -> Durations.parse(" "));
        assertThrows(IllegalArgumentException.class, () -> Durations.parse(null));
    }
}
