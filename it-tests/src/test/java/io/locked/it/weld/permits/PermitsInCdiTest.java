package io.locked.it.weld.permits;

import io.locked.api.LockManager;
import io.locked.api.LockNotAcquiredException;
import io.locked.it.weld.LockedDeployment;
import io.locked.it.weld.TestConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code @Locked(permits = 2)} on a Weld SE bean: two calls run at once, a third with no wait is
 * refused while they run, config raises the count per method, and the operator sees both holders.
 */
class PermitsInCdiTest {
    private static final String METHOD = "locked.\"" + Renderings.class.getName() + "/render\".permits";

    @AfterEach
    void clearConfig() {
        TestConfig.clear();
    }

    @Test
    void twoCallsRunAtOnceAndAThirdIsRefused() throws Exception {
        try (WeldContainer container = LockedDeployment.with(Renderings.class).initialize()) {
            Renderings renderings = container.select(Renderings.class).get();
            LockManager locks = container.select(LockManager.class).get();
            CountDownLatch finish = new CountDownLatch(1);
            List<Future<String>> running = startInside(renderings, 2, finish);
            try {
                assertEquals(2, locks.holders("render").size(), "the operator sees both holders");
                assertThrows(LockNotAcquiredException.class, () -> renderings.render(new CountDownLatch(1), finish),
                        "a third call while two run");
            } finally {
                finish.countDown();
            }
            List<String> slots = new ArrayList<>();
            for (Future<String> call : running) {
                slots.add(call.get(30, TimeUnit.SECONDS));
            }
            assertNotEquals(slots.get(0), slots.get(1), "each call held a slot of its own");
            assertTrue(slots.contains("render#1"), slots.toString());
        }
    }

    @Test
    void configRaisesThePermitsOfOneMethod() throws Exception {
        TestConfig.set(METHOD, "3");
        try (WeldContainer container = LockedDeployment.with(Renderings.class).initialize()) {
            Renderings renderings = container.select(Renderings.class).get();
            CountDownLatch finish = new CountDownLatch(1);
            List<Future<String>> running = startInside(renderings, 3, finish);
            finish.countDown();
            for (Future<String> call : running) {
                call.get(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aBadCountFromConfigFailsTheDeploymentNamingTheKey() {
        TestConfig.set(METHOD, "many");
        RuntimeException failure = assertThrows(RuntimeException.class, () -> {
            try (WeldContainer ignored = LockedDeployment.with(Renderings.class).initialize()) {
                // booted: the bad value went unnoticed
            }
        });
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        assertTrue(messages.toString().contains("Invalid @Locked.permits on " + Renderings.class.getName()
                + "#render() from config " + METHOD + "=many: must be a whole number"), messages.toString());
    }

    /** Starts that many calls and returns once each holds its permit, or fails. */
    private static List<Future<String>> startInside(Renderings renderings, int calls, CountDownLatch finish)
            throws InterruptedException {
        ExecutorService threads = Executors.newFixedThreadPool(calls);
        CountDownLatch inside = new CountDownLatch(calls);
        List<Future<String>> running = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            running.add(threads.submit(() -> renderings.render(inside, finish)));
        }
        threads.shutdown();
        if (!inside.await(30, TimeUnit.SECONDS)) {
            finish.countDown();
            throw new AssertionError(inside.getCount() + " of " + calls + " calls never got inside: "
                    + running.stream().filter(Future::isDone).map(PermitsInCdiTest::outcome).toList());
        }
        return running;
    }

    private static String outcome(Future<String> call) {
        try {
            return call.get();
        } catch (Exception failed) {
            return failed.toString();
        }
    }
}
