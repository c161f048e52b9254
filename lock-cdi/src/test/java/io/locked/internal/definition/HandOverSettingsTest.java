package io.locked.internal.definition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code locked.hand-over.row-run} and {@code locked.hand-over.lease-keep}: defaults, values, and the errors that name them. */
class HandOverSettingsTest {

    private static HandOverSettings read(String value) {
        return read(HandOverSettings.ROW_RUN, value);
    }

    private static HandOverSettings read(String key, String value) {
        Map<String, String> config = value == null ? Map.of() : Map.of(key, value);
        return HandOverSettings.from(name -> Optional.ofNullable(config.get(name)));
    }

    @Test
    void unsetOrBlankIsTwentyMillisecondsAndZeroTurnsTheHandOverOff() {
        assertEquals(Duration.ofMillis(20), read(null).rowRun());
        assertEquals(Duration.ofMillis(20), read(" ").rowRun());
        assertEquals(Duration.ZERO, read("0s").rowRun());
        assertEquals(Duration.ofMillis(50), read("50ms").rowRun());
        assertEquals(Duration.ofSeconds(10), read("PT10S").rowRun());
    }

    @Test
    void aBadValueNamesTheKeyAndSaysWhatIsWrong() {
        assertEquals("Invalid locked.hand-over.row-run: '-1ms' is negative",
                assertThrows(IllegalArgumentException.class, () -> read("-1ms")).getMessage());
        assertEquals("Invalid locked.hand-over.row-run: must be zero up to 10s, was 11s",
                assertThrows(IllegalArgumentException.class, () -> read("11s")).getMessage());
        assertEquals("Invalid locked.hand-over.row-run: 'soon' is not a duration: use PT5S or a number with a unit"
                        + " (ns, us, ms, s, m, h, d) such as 250ms or 5s",
                assertThrows(IllegalArgumentException.class, () -> read("soon")).getMessage());
    }

    @Test
    void unsetOrBlankKeepsNoLeaseAndAKeepIsAtMostAHundredMilliseconds() {
        assertEquals(Duration.ZERO, read(HandOverSettings.LEASE_KEEP, null).leaseKeep());
        assertEquals(Duration.ZERO, read(HandOverSettings.LEASE_KEEP, " ").leaseKeep());
        assertEquals(Duration.ofMillis(2), read(HandOverSettings.LEASE_KEEP, "2ms").leaseKeep());
        assertEquals(Duration.ofMillis(100), read(HandOverSettings.LEASE_KEEP, "PT0.1S").leaseKeep());
        assertEquals("Invalid locked.hand-over.lease-keep: must be zero up to 100ms, was 101ms",
                assertThrows(IllegalArgumentException.class, () -> read(HandOverSettings.LEASE_KEEP, "101ms")).getMessage());
        assertEquals("Invalid locked.hand-over.lease-keep: '-2ms' is negative",
                assertThrows(IllegalArgumentException.class, () -> read(HandOverSettings.LEASE_KEEP, "-2ms")).getMessage());
    }

    @Test
    void theKeysAreOnesLockedReads() {
        assertEquals(List.of(), LockedKeys.unknown(List.of(HandOverSettings.ROW_RUN, HandOverSettings.LEASE_KEEP)));
    }
}
