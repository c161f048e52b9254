package io.locked.quarkus.app;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.locked.eeapp.RunningServer;

/**
 * Vert.x's blocked-thread checker, set below its default of 2 s: an event loop found running one task for
 * more than 1.5 s is reported in the instance's log ("has been blocked for"). A lock wait on the loop lasts
 * as long as the holds ahead of it (seconds in these tests), so it is caught; a first request's class loading
 * on a loaded machine (600 ms seen with a 500 ms limit) is not. The deterministic check of a free loop is
 * {@code ReactiveOnQuarkusIT}'s: requests answered while others wait for a lock on the same instance.
 */
final class EventLoopCheck {
    /** The settings an instance starts with. */
    static final String STRICT = "-Dquarkus.vertx.max-event-loop-execute-time=1500ms";

    private EventLoopCheck() {
    }

    static void assertNeverBlocked(RunningServer... instances) {
        for (RunningServer instance : instances) {
            String log = instance.log();
            assertFalse(log.contains("has been blocked for"), instance.name() + " reported a blocked event loop: "
                    + log.lines().filter(line -> line.contains("has been blocked")).findFirst().orElse(""));
        }
    }
}
