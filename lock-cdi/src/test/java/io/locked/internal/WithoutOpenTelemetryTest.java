package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockRequest;
import io.locked.internal.telemetry.TelemetryPresence;
import io.locked.testing.InMemoryLockRepository;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * OpenTelemetry is optional: the library's classes, loaded where its API cannot be, still build a lock
 * manager and lock, and refuse an OpenTelemetry argument with a message that says why. The test runs
 * them in a class loader of their own whose parent hides {@code io.opentelemetry}, as an application
 * without it would; a class of the library that named an OpenTelemetry type on the way would fail to load.
 */
class WithoutOpenTelemetryTest {

    /** Runs in the loader without OpenTelemetry. */
    public static final class LockOnce implements Supplier<String> {
        @Override
        public String get() {
            if (TelemetryPresence.onClassPath()) {
                return "OpenTelemetry was found";
            }
            try (LockManager locks = LockManagerBuilder.on(new InMemoryLockRepository()).build();
                 LockHandle lock = locks.acquire(LockRequest.of("plain:1").name("plain"))) {
                ((DefaultLockManager) locks).carryContext(() -> { }).run();
                IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                        () -> LockManagerBuilder.on(new InMemoryLockRepository()).openTelemetry(new Object()));
                return lock.isValid() ? "locked; " + refused.getMessage() : "lock invalid";
            }
        }
    }

    @Test
    void theLibraryLocksWithoutOpenTelemetry() throws Exception {
        URL mainClasses = LockManagerBuilder.class.getProtectionDomain().getCodeSource().getLocation();
        URL testClasses = WithoutOpenTelemetryTest.class.getProtectionDomain().getCodeSource().getLocation();
        ClassLoader parent = WithoutOpenTelemetryTest.class.getClassLoader();
        ClassLoader hidingOpenTelemetry = new ClassLoader(parent) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                // the library's own classes must come from the child, which has no OpenTelemetry to see
                if (name.startsWith("io.opentelemetry.") || name.startsWith("io.locked.")) {
                    throw new ClassNotFoundException(name);
                }
                return super.loadClass(name, resolve);
            }
        };
        try (URLClassLoader withoutOpenTelemetry = new URLClassLoader(new URL[] {mainClasses, testClasses},
                hidingOpenTelemetry)) {
            @SuppressWarnings("unchecked")
            Supplier<String> lockOnce = (Supplier<String>) withoutOpenTelemetry.loadClass(LockOnce.class.getName())
                    .getConstructor().newInstance();
            assertEquals("locked; An OpenTelemetry was given but its API (io.opentelemetry.api.OpenTelemetry)"
                    + " is not on the class path", lockOnce.get());
        }
    }
}
