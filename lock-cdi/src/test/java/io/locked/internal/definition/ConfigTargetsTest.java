package io.locked.internal.definition;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.locked.api.Locked;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A per-class or per-method key whose class or method has no {@code @Locked} method is read by nothing: say so. */
class ConfigTargetsTest {

    static class Shipping {
        @Locked
        public void ship() {
        }

        @Locked
        public void track() {
        }
    }

    private final String shipping = Shipping.class.getName();
    private final ConfigTargets targets = new ConfigTargets(List.of(method("ship"), method("track")));

    private static java.lang.reflect.Method method(String name) {
        try {
            return Shipping.class.getMethod(name);
        } catch (NoSuchMethodException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void theKeysOfLockedMethodsAndTheirClassesAreNotWarnedAbout() {
        assertEquals(List.of(), targets.unknown(List.of("locked.\"" + shipping + "/ship\".wait",
                "locked.\"" + shipping + "\".mode", "locked.default.lease", "other.key")));
    }

    @Test
    void aMisspeltClassOrMethodIsNamedWithTheNearestReal() {
        String misspelt = shipping.replace("Shipping", "Shiping");
        assertEquals(List.of(
                "Locked's config key locked.\"" + misspelt + "/ship\".wait names a method with no @Locked method, so nothing"
                        + " reads it; did you mean locked.\"" + shipping + "/ship\".wait?",
                "Locked's config key locked.\"" + shipping + "/trak\".lease names a method with no @Locked method, so nothing"
                        + " reads it; did you mean locked.\"" + shipping + "/track\".lease?",
                "Locked's config key locked.\"" + misspelt + "\".mode names a class with no @Locked method, so nothing"
                        + " reads it; did you mean locked.\"" + shipping + "\".mode?"),
                targets.unknown(List.of("locked.\"" + misspelt + "/ship\".wait", "locked.\"" + shipping + "/trak\".lease",
                        "locked.\"" + misspelt + "\".mode")));
    }

    @Test
    void aDeploymentWithoutLockedMethodsSaysSo() {
        assertEquals(List.of("Locked's config key locked.\"com.acme.Jobs/nightly\".wait names a method with no @Locked method,"
                        + " so nothing reads it; this deployment has no @Locked method to name"),
                new ConfigTargets(List.of()).unknown(List.of("locked.\"com.acme.Jobs/nightly\".wait")));
    }
}
