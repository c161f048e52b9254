package io.locked.internal.definition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.Locked;
import io.locked.api.OnTimeout;
import io.locked.internal.definition.LockedKeys.Member;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Config keys as users write them: the annotation's own names ({@code maxWait}, {@code onTimeout})
 * are read like the documented keys ({@code wait}, {@code on-timeout}); a bad value is named with the
 * member as the annotation spells it and says what is wrong; a {@code locked.*} key Locked does not
 * read is warned about.
 */
class ConfigKeysTest {

    static class Jobs {
        @Locked("job")
        public void run() {
        }
    }

    private static Resolution resolve(Map<String, String> config) throws Exception {
        Method run = Jobs.class.getMethod("run");
        return LockedDefinitions.resolve(Jobs.class, run, name -> Optional.ofNullable(config.get(name)));
    }

    @Test
    void annotationNamedKeysAreRead() throws Exception {
        Resolution resolution = resolve(Map.of("locked.default.maxWait", "3s", "locked.default.onTimeout", "skip"));
        assertEquals(List.of(), resolution.errors());
        assertEquals(Duration.ofSeconds(3), resolution.settings().maxWait());
        assertEquals(OnTimeout.SKIP, resolution.settings().onTimeout());
    }

    @Test
    void theDocumentedKeyWinsOverTheAnnotationsName() throws Exception {
        Resolution resolution = resolve(Map.of("locked.default.max-wait", "1s", "locked.default.maxWait", "3s"));
        assertEquals(Duration.ofSeconds(1), resolution.settings().maxWait());
    }

    @Test
    void badValuesNameTheMemberAsTheAnnotationSpellsItAndSayWhatIsWrong() throws Exception {
        String where = Jobs.class.getName() + "#run()";
        assertError(resolve(Map.of("locked.default.maxWait", "garbage")), "Invalid @Locked.maxWait on " + where
                + " from config locked.default.maxWait=garbage: 'garbage' is not a duration");
        assertError(resolve(Map.of("locked.default.onTimeout", "skipp")), "Invalid @Locked.onTimeout on " + where
                + " from config locked.default.onTimeout=skipp: unknown value 'skipp'");
        assertError(resolve(Map.of("locked.default.max-wait", "-5s")), "Invalid @Locked.maxWait on " + where
                + " from config locked.default.max-wait=-5s: '-5s' is negative");
        assertError(resolve(Map.of("locked.default.max-wait", "-PT5S")), "negative");
        assertError(resolve(Map.of("locked.default.lease", "-PT5S")), "negative");
    }

    @Test
    void unknownKeysAreWarnedAboutWithTheKeyMeant() {
        List<String> warnings = LockedKeys.unknown(List.of("locked.default.maxwait", "locked.default.timeout",
                "locked.\"com.acme.Jobs/nightly\".on_timeout", "locked.create_table", "locked.default.wait",
                "locked.\"com.acme.Jobs\".onTimeout", "locked.health.timeout", "quarkus.http.port", "locked-app.instance"));
        assertEquals(5, warnings.size(), String.join("\n", warnings));
        assertTrue(warnings.get(0).contains("locked.default.maxwait; did you mean locked.default.max-wait?"), warnings.get(0));
        assertTrue(warnings.get(1).contains("locked.default.timeout; did you mean locked.default.on-timeout?"), warnings.get(1));
        assertTrue(warnings.get(2).contains("did you mean locked.\"com.acme.Jobs/nightly\".on-timeout?"), warnings.get(2));
        assertTrue(warnings.get(3).contains("did you mean locked.create-table?"), warnings.get(3));
        assertTrue(warnings.get(4).contains("locked.default.wait"), "one name per setting: " + warnings.get(4));
    }

    @Test
    void aMembersBeginningOrASlipNamesTheMemberInAShortWarning() {
        List<String> warnings = LockedKeys.unknown(List.of("locked.default.hold", "locked.\"com.acme.Jobs\".leese",
                "locked.create-tabel", "locked.default.colour", "locked.colour"));
        assertEquals(List.of("Locked does not read the config key locked.default.hold; did you mean locked.default.hold-at-least?",
                "Locked does not read the config key locked.\"com.acme.Jobs\".leese; did you mean locked.\"com.acme.Jobs\".lease?",
                "Locked does not read the config key locked.create-tabel; did you mean locked.create-table?",
                "Locked does not read the config key locked.default.colour; its members are mode, max-wait, lease,"
                        + " hold-at-least, lock-delay, permits, type, on-timeout, enabled",
                "Locked does not read the config key locked.colour; docs/configuration.md lists the keys it reads"), warnings);
    }

    static class Misused {
        @Locked(value = "job", lease = "0s")
        public void instant() {
        }

        @Locked("job")
        public final void sealed() {
        }
    }

    static final class Sealed {
        @Locked("job")
        public void run() {
        }
    }

    @Test
    void durationsAreReportedAsWrittenAndFinalSaysWhatToRemove() throws Exception {
        Resolution fromAnnotation = LockedDefinitions.resolve(Misused.class, Misused.class.getMethod("instant"), name -> Optional.empty());
        assertEquals(List.of("Invalid @Locked.lease on " + Misused.class.getName() + "#instant(): must be at least 1ms, was 0s"),
                fromAnnotation.errors());
        assertError(resolve(Map.of("locked.default.lease", "500us")), "lease=500us: must be at least 1ms, was 500us");
        assertError(resolve(Map.of("locked.default.hold-at-least", "400d")), "must be at most 365 days, was 400d");
        assertTrue(resolve(Map.of("locked.default.lease", "0s")).errors().stream().noneMatch(error -> error.contains("PT0S")));

        assertError(LockedDefinitions.resolve(Misused.class, Misused.class.getMethod("sealed"), name -> Optional.empty()),
                "a final method cannot be intercepted; remove final from the method");
        assertError(LockedDefinitions.resolve(Sealed.class, Sealed.class.getMethod("run"), name -> Optional.empty()),
                "a method of a final class cannot be intercepted; remove final from the class Sealed");
    }

    @Test
    void settingsBesideTheMembersReportDurationsAsUsersWriteThem() {
        assertEquals("0s", Durations.text(Duration.ZERO));
        assertEquals("500ms", Durations.text(Duration.ofMillis(500)));
        assertEquals("1m30s", Durations.text(Duration.ofSeconds(90)));
        assertEquals("-1s500ms", Durations.text(Duration.ofMillis(-1500)));
        IllegalArgumentException zero = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new HealthSettings(Duration.ZERO));
        assertEquals("Invalid locked.health.timeout: must be positive, was 0s", zero.getMessage());
    }

    // a new @Locked member that config can override joins LockedKeys.Member, which gives its key and spellings
    @Test
    void everyAnnotationMemberButTheKeyHasAConfigKey() {
        Set<String> members = Arrays.stream(Locked.class.getDeclaredMethods()).map(Method::getName)
                .filter(name -> !name.equals("value") && !name.equals("key")).collect(Collectors.toCollection(TreeSet::new));
        Set<String> configurable = Arrays.stream(Member.values()).map(Member::annotationName)
                .collect(Collectors.toCollection(TreeSet::new));
        assertTrue(configurable.containsAll(members), "members without a config key: " + members + " vs " + configurable);
        assertEquals("on-timeout", Member.ON_TIMEOUT.key());
        assertEquals(List.of("max-wait", "maxWait"), Member.MAX_WAIT.spellings());
    }

    private static void assertError(Resolution resolution, String expected) {
        assertTrue(resolution.errors().stream().anyMatch(error -> error.contains(expected)),
                "expected <" + expected + "> in " + resolution.errors());
    }
}
