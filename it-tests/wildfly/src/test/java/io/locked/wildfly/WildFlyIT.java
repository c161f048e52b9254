package io.locked.wildfly;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.eeapp.EeApplicationTests;
import io.locked.eeapp.MisusedWar;
import io.locked.eeapp.ScheduledJobsCheck;
import io.locked.wildfly.misuse.BadKeyBean;
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
 * The test WAR on two WildFly 39 servers (the default configuration with MicroProfile Health added:
 * see {@link WildFlyInstance}), each with its own ports, on one MariaDB database through a datasource
 * added by the {@code jboss-cli} commands of app-datasource.cli on the JDBC driver deployed as a jar;
 * the lock table lives in the application's own JTA unit. Servers start once for the class; the second one's clock is 3.5 s ahead, for the scheduled jobs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WildFlyIT extends EeApplicationTests {
    private final List<WildFlyInstance> servers = new ArrayList<>();

    @Override
    protected List<WildFlyInstance> servers() {
        return servers;
    }

    @Override
    protected String label() {
        return "wildfly";
    }

    @BeforeAll
    void startTwoServers() throws Exception {
        Path app = Path.of(System.getProperty("wildfly.app"));
        Path driver = Path.of(System.getProperty("wildfly.driver"));
        int offset = 100;
        for (String name : List.of("a", "b")) {
            WildFlyInstance server = new WildFlyInstance(name, offset);
            servers.add(server);
            if (name.equals("b")) {
                ScheduledJobsCheck.setClockAhead(server);
            }
            server.prepare(driver, app).start();
            System.out.printf("[wildfly] server %s (port offset %d) booted and ready in %d ms%n", name, offset, server.bootMillis());
            offset += 100;
        }
    }

    @AfterAll
    void stopServers() throws InterruptedException {
        for (WildFlyInstance server : servers) {
            server.close();
        }
    }

    @Test
    void scheduledJobsUnderAMinimumHoldRunOncePerPeriodAcrossServersWhoseClocksDiffer() throws Exception {
        new ScheduledJobsCheck(servers, label(), "jdbc:mysql://127.0.0.1:3306/locked_wildfly").run();
    }

    @Test
    void aBadKeyTemplateFailsTheDeploymentNamingClassMethodAndMember() throws Exception {
        WildFlyInstance server = servers.get(0);
        Path war = server.deployments().resolve("bad-key.war");
        MisusedWar.write(war, Path.of(System.getProperty("wildfly.test-classes")), BadKeyBean.class,
                Path.of(System.getProperty("wildfly.app")));
        Path failed = server.deployments().resolve("bad-key.war.failed");
        Path deployed = server.deployments().resolve("bad-key.war.deployed");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!Files.exists(failed) && !Files.exists(deployed) && System.nanoTime() < deadline) {
            Thread.sleep(200); // the deployment scanner's own interval is 5 s
        }
        assertTrue(Files.exists(failed), "the misused WAR was not refused:\n" + server.log());
        String failure = Files.readString(failed);
        Files.delete(war); // undeployed again, so that the server's own readiness stays about the application
        assertTrue(failure.contains("io.locked.wildfly.misuse.BadKeyBean") && failure.contains("ship")
                && failure.contains("nope"), failure);
    }

}
