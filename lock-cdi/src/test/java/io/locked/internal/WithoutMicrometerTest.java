package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockRequest;
import io.locked.internal.metrics.MicrometerPresence;
import io.locked.testing.InMemoryLockRepository;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Micrometer is optional: the library's classes, loaded where Micrometer cannot be, still build a
 * lock manager and lock. The test runs them in a class loader of their own whose parent hides
 * {@code io.micrometer}, as an application without Micrometer would.
 */
class WithoutMicrometerTest {

    /** Runs in the loader without Micrometer. */
    public static final class LockOnce implements Supplier<String> {
        @Override
        public String get() {
            if (MicrometerPresence.onClassPath()) {
                return "Micrometer was found";
            }
            try (LockManager locks = LockManagerBuilder.on(new InMemoryLockRepository()).build();
                 LockHandle lock = locks.acquire(LockRequest.of("plain:1").name("plain"))) {
                IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                        () -> LockManagerBuilder.on(new InMemoryLockRepository()).meterRegistry(new Object()));
                return lock.isValid() ? "locked; " + refused.getMessage() : "lock invalid";
            }
        }
    }

    @Test
    void theLibraryLocksWithoutMicrometer() throws Exception {
        URL mainClasses = LockManagerBuilder.class.getProtectionDomain().getCodeSource().getLocation();
        URL testClasses = WithoutMicrometerTest.class.getProtectionDomain().getCodeSource().getLocation();
        ClassLoader parent = WithoutMicrometerTest.class.getClassLoader();
        ClassLoader hidingMicrometer = new ClassLoader(parent) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                // the library's own classes must come from the child, which has no Micrometer to see
                if (name.startsWith("io.micrometer.") || name.startsWith("io.locked.")) {
                    throw new ClassNotFoundException(name);
                }
                return super.loadClass(name, resolve);
            }
        };
        try (URLClassLoader withoutMicrometer = new URLClassLoader(new URL[] {mainClasses, testClasses}, hidingMicrometer)) {
            @SuppressWarnings("unchecked")
            Supplier<String> lockOnce = (Supplier<String>) withoutMicrometer.loadClass(LockOnce.class.getName())
                    .getConstructor().newInstance();
            assertEquals("locked; A meter registry was given but Micrometer (io.micrometer.core.instrument.MeterRegistry)"
                    + " is not on the class path", lockOnce.get());
        }
    }
}
