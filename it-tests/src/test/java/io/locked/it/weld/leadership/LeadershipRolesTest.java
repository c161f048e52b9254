package io.locked.it.weld.leadership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockManager;
import io.locked.api.event.LeadershipGranted;
import io.locked.api.event.LeadershipLost;
import io.locked.internal.cdi.LeadershipRoles;
import io.locked.it.weld.LockedDeployment;
import io.locked.it.weld.TestConfig;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The CDI form of leadership: two applications (two Weld containers, each with its own lock manager,
 * as two JVMs would have) name the same role in {@code locked.leadership.roles}; one is granted it,
 * and when that one stops, the role moves to the other at once, in a higher term.
 */
class LeadershipRolesTest {
    private final String role = "it:role:" + UUID.randomUUID();

    @AfterEach
    void clearConfig() {
        TestConfig.clear();
    }

    @Test
    void oneApplicationLeadsAndTheRoleMovesWhenItStops() throws Exception {
        TestConfig.set("locked.leadership.roles", role);
        TestConfig.set("locked.leadership.lease", "30s");
        WeldContainer second = LockedDeployment.with(LeadershipRoles.class, LeadershipLog.class).containerId("second")
                .initialize();
        try {
            LeadershipLog secondLog = second.select(LeadershipLog.class).get();
            await(() -> !secondLog.granted().isEmpty(), "the first application to start is granted the role");
            LeadershipGranted first = secondLog.granted().get(0);
            List<LeadershipLost> secondLost = secondLog.lost(); // the list outlives the container
            assertEquals(role, first.role());
            assertTrue(first.leadership().isLeader());

            List<LeadershipLost> thirdLost;
            try (WeldContainer third = LockedDeployment.with(LeadershipRoles.class, LeadershipLog.class).containerId("third")
                    .initialize()) {
                LeadershipLog thirdLog = third.select(LeadershipLog.class).get();
                thirdLost = thirdLog.lost();
                second.shutdown();
                LockManager thirdLocks = third.select(LockManager.class).get();
                await(() -> !thirdLog.granted().isEmpty(), "the role moves when its holder stops, well before its 30 s lease",
                        () -> "the stopped application was told " + secondLost + "; the role's row: " + thirdLocks.inspect(role));
                assertEquals("closed", secondLost.get(0).reason(), "the stopped application was told why");
                assertFalse(first.leadership().isLeader());
                assertTrue(thirdLog.granted().get(0).term() > first.term(), "a higher term");
            }
            assertEquals("closed", thirdLost.get(0).reason(), "and the last one when it stops");
        } finally {
            if (second.isRunning()) {
                second.shutdown();
            }
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        await(condition, what, () -> "");
    }

    /** @param seen what the failure tells of the state it ended in, to say why the condition did not come */
    private static void await(BooleanSupplier condition, String what, Supplier<String> seen) throws InterruptedException {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("within 20 s: " + what + ". " + seen.get());
            }
            Thread.sleep(20); // polling for the candidacy's thread
        }
    }
}
