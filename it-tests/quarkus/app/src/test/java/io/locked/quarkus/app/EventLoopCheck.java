package io.locked.quarkus.app;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.locked.eeapp.RunningServer;

/**
 * Vert.x's blocked-thread checker, set low: an event loop found running one task for more than 500 ms
 * (a quarter of the default) is reported in the instance's log ("has been blocked for"). A lock wait on
 * the loop, which lasts as long as the holder ahead of it, is caught; start-up's own short tasks are not.
 */
final class EventLoopCheck {
    /** The settings an instance starts with. */
    static final String STRICT = "-Dquarkus.vertx.max-event-loop-execute-time=500ms";

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
