package io.locked.internal.definition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code locked.telemetry.*}: off and with rendered keys by default, a wrong value named with its key. */
class TelemetrySettingsTest {

    private static SettingLookup config(Map<String, String> values) {
        return name -> Optional.ofNullable(values.get(name));
    }

    @Test
    void offByDefaultWithRenderedKeys() {
        assertEquals(new TelemetrySettings(false, true), TelemetrySettings.from(SettingLookup.none()));
    }

    @Test
    void switchedOnWithNamesOnly() {
        assertEquals(new TelemetrySettings(true, false), TelemetrySettings.from(config(Map.of(
                TelemetrySettings.ENABLED, "TRUE", TelemetrySettings.KEY_ATTRIBUTE, " name "))));
    }

    @Test
    void aWrongValueIsReportedWithItsKey() {
        IllegalArgumentException enabled = assertThrows(IllegalArgumentException.class,
                () -> TelemetrySettings.from(config(Map.of(TelemetrySettings.ENABLED, "yes"))));
        assertTrue(enabled.getMessage().startsWith("Invalid locked.telemetry.enabled"), enabled.getMessage());
        IllegalArgumentException keys = assertThrows(IllegalArgumentException.class,
                () -> TelemetrySettings.from(config(Map.of(TelemetrySettings.KEY_ATTRIBUTE, "template"))));
        assertTrue(keys.getMessage().startsWith("Invalid locked.telemetry.key-attribute"), keys.getMessage());
        assertEquals(java.util.List.of(), LockedKeys.unknown(java.util.List.of(TelemetrySettings.ENABLED,
                TelemetrySettings.KEY_ATTRIBUTE)), "both keys are known");
    }
}
