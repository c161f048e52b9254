package io.locked.payara;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.eeapp.EeApplicationTests;
import io.locked.eeapp.MisusedWar;
import io.locked.eeapp.ScheduledJobsCheck;
import io.locked.payara.misuse.BadKeyBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The same application as on WildFly on two Payara Micro instances, with EclipseLink and the
 * application's own {@code @DataSourceDefinition}, on one MariaDB database. Instances start once for
 * the class; the second one's clock is 3.5 s ahead, for the scheduled jobs. The class runs once per
 * Payara version (6: Jakarta EE 10; 7: EE 11, EclipseLink 5, Java 21+), each a failsafe execution
 * that names the version's jar, its Java and its database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PayaraMicroIT extends EeApplicationTests {
    private final List<PayaraMicroInstance> instances = new ArrayList<>();

    @Override
    protected List<PayaraMicroInstance> servers() {
        return instances;
    }

    @Override
    protected String label() {
        return PayaraMicroInstance.LANE;
    }

    @BeforeAll
    void startTwoInstances() throws Exception {
        Path app = Path.of(System.getProperty("payara.app"));
        for (String name : List.of("a", "b")) {
            PayaraMicroInstance instance = new PayaraMicroInstance(name);
            instances.add(instance);
            if (name.equals("b")) {
                ScheduledJobsCheck.setClockAhead(instance);
            }
            instance.start(app, true);
            System.out.printf("[%s] instance %s booted and ready in %d ms%n", label(), name, instance.bootMillis());
        }
    }

    /** Stops every instance, also after one's checks at its stop failed: a failed check must not leave a server running. */
    @AfterAll
    void stopInstances() throws InterruptedException {
        AssertionError failed = null;
        for (PayaraMicroInstance instance : instances) {
            try {
                instance.close();
            } catch (AssertionError checkAtStop) {
                if (failed == null) {
                    failed = checkAtStop;
                } else {
                    failed.addSuppressed(checkAtStop);
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    /**
     * Runs where instances skip the job's runs that the other instance holds: each skip a busy key. On the
     * JPA path EclipseLink logged each one as a WARNING with a stack trace of about a hundred lines
     * ({@code Lock wait timeout exceeded ... FOR UPDATE NOWAIT}), and nothing on Payara quiets it; on
     * the native path, a busy key logs nothing. Negative control: before Locked found the unit's data
     * source in EclipseLink's login, both instances' logs had those warnings after this test.
     */
    @Test
    void scheduledJobsUnderAMinimumHoldRunOncePerPeriodAcrossInstancesWhoseClocksDiffer() throws Exception {
        new ScheduledJobsCheck(instances, label(), "jdbc:mysql://127.0.0.1:3306/" + PayaraMicroInstance.DATABASE).run();
        for (PayaraMicroInstance instance : instances) {
            List<String> refusals = instance.log().lines().filter(line -> line.contains("NOWAIT")).toList();
            assertEquals(List.of(), refusals, instance.name() + " logged refused lock statements of its skipped runs");
        }
    }

    /**
     * EclipseLink keeps the server's data source in its login, not in the unit's properties: Locked finds it
     * there and locks with its own statements on the server's pool (before, it said it locked through JPA).
     */
    @Test
    void lockedLocksWithItsOwnStatementsOnTheServersDataSource() {
        for (PayaraMicroInstance instance : instances) {
            String log = instance.log();
            assertFalse(log.contains("Locked locks through JPA"), "Locked chose the JPA path:\n" + log);
            assertTrue(log.contains("Locked locks with its own statements (locked.statements=native) on MARIADB"), log);
        }
    }

    @Test
    void aBadKeyTemplateFailsTheDeploymentNamingClassMethodAndMember() throws Exception {
        Path war = Path.of(System.getProperty("payara.test-classes")).getParent().resolve("bad-key.war");
        MisusedWar.write(war, Path.of(System.getProperty("payara.test-classes")), BadKeyBean.class,
                Path.of(System.getProperty("payara.app")));
        try (PayaraMicroInstance misused = new PayaraMicroInstance("misused")) {
            misused.start(war, false);
            String expected = "Invalid @Locked.key on io.locked.payara.misuse.BadKeyBean#ship()";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (!misused.log().contains(expected) && misused.process().isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(200); // polling the instance's log
            }
            String log = misused.log();
            assertTrue(log.contains(expected) && log.contains("nope"), log);
        }
    }

}
