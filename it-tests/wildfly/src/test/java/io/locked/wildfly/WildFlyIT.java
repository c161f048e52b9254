package io.locked.wildfly;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.eeapp.EeApplicationTests;
import io.locked.eeapp.MisusedWar;
import io.locked.eeapp.ScheduledJobsCheck;
import io.locked.wildfly.misuse.BadKeyBean;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The test WAR on two WildFly servers (the default configuration with MicroProfile Health added:
 * see {@link WildFlyInstance}), each with its own ports, on one MariaDB database through a datasource
 * added by the {@code jboss-cli} commands of app-datasource.cli on the JDBC driver deployed as a jar;
 * the lock table lives in the application's own JTA unit. Servers start once for the class; the second one's clock is 3.5 s ahead, for the scheduled jobs.
 * The class runs once per WildFly (39: Jakarta EE 10, Hibernate 6.6; Preview 38: EE 11, Hibernate 7),
 * each a failsafe execution that names the distribution and its database.
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
        return WildFlyInstance.LANE;
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
            server.debugging(HIBERNATE_STATEMENTS).prepare(driver, app).start();
            System.out.printf("[%s] server %s (port offset %d) booted and ready in %d ms%n", label(), name, offset, server.bootMillis());
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
        new ScheduledJobsCheck(servers, label(), "jdbc:mysql://127.0.0.1:3306/" + WildFlyInstance.DATABASE).run();
    }

    /**
     * Issue 40: WildFly goes on firing the EJB timers of a deployment that failed because the lock store
     * could not be created, and each tick used to throw the store's failure at the timer service, which
     * logged it twice (WFLYEJB0020, and WFLYEJB0022 for its immediate retry). Here the store's producer
     * refuses a negative connection wait; the ticks that follow are skipped and the cause said once.
     */
    @Test
    void aLockStoreThatCannotBeCreatedIsReportedOnceNotAtEveryTimerTick() throws Exception {
        try (WildFlyInstance server = new WildFlyInstance("no-store", 300)) {
            server.systemProperty("locked.connection-wait", "-1s").debugging(STORE_CREATION_FAILURES)
                    .prepare(Path.of(System.getProperty("wildfly.driver")), Path.of(System.getProperty("wildfly.app")))
                    .startWithoutWaiting();
            Path failed = server.deployments().resolve("app.war.failed");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            // four repeats: at least two ticks of each of the two EJB timers after the first report
            while (!(Files.exists(failed) && repeatsIn(server) >= 4) && !timerServiceLogged(server) && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            String log = Files.exists(server.logFile()) ? Files.readString(server.logFile()) : "";
            assertTrue(Files.exists(failed), "the deployment did not fail:\n" + server.log());
            assertFalse(timerServiceLogged(server), "the timer service logged the store's failure:\n" + log);
            assertTrue(repeatsIn(server) >= 4, "the timers did not tick four times within 180 s:\n" + log);
            List<String> reports = log.lines().filter(line -> line.contains("Locked cannot create its lock store")).toList();
            assertEquals(1, reports.size(), "not one report for one cause:\n" + String.join("\n", reports));
            assertTrue(reports.get(0).contains("'-1s' is negative"), "the report does not name the cause: " + reports.get(0));
        }
    }

    private static final String STORE_CREATION_FAILURES = "io.locked.internal.cdi.StoreCreationFailures";
    /** Hibernate's log of every statement it runs (at DEBUG, so in server.log only). */
    private static final String HIBERNATE_STATEMENTS = "org.hibernate.SQL";

    /**
     * On the server's JTA unit Locked reaches the unit's connections (Hibernate's connection provider
     * is the server's datasource) and locks with its own statements on them, not through Hibernate: a
     * locked increment logs Hibernate's statements on the counter's table, and none on the lock table.
     * Where it cannot (a Hibernate whose connection provider it does not find), Locked falls back to
     * the JPA path and says so once at INFO: this test finds that either way. Negative control: with
     * {@code locked.statements=jpa} on both servers this check failed, listing Hibernate's statements
     * on locked_lock.
     */
    @Test
    void lockedLocksWithItsOwnStatementsNotThroughHibernate() throws Exception {
        WildFlyInstance server = servers.get(0);
        long before = Files.size(server.logFile());
        String counter = "native-" + UUID.randomUUID();
        for (String mode : List.of("pessimistic", "optimistic")) {
            assertEquals(200, post(server.http().resolve("counter/" + counter + "/" + mode)).statusCode());
        }
        byte[] log = Files.readAllBytes(server.logFile());
        int from = log.length >= before ? (int) before : 0; // a log rotated meanwhile (at midnight) starts afresh
        List<String> statements = new String(log, from, log.length - from, StandardCharsets.UTF_8).lines()
                .filter(line -> line.contains("[" + HIBERNATE_STATEMENTS + "]")).toList();
        assertTrue(statements.stream().anyMatch(line -> line.contains(" app_counter ")),
                "Hibernate logged none of the counter's statements, so the log shows nothing:\n" + String.join("\n", statements));
        assertEquals(List.of(), statements.stream().filter(line -> line.contains("locked_lock")).toList(),
                "Locked locked through Hibernate");
        assertFalse(server.log().contains("Locked locks through JPA"), "Locked chose the JPA path:\n" + server.log());
    }

    private static long repeatsIn(WildFlyInstance server) throws IOException {
        if (!Files.exists(server.logFile())) {
            return 0;
        }
        return Files.readString(server.logFile()).lines().filter(line -> line.contains("the lock store still cannot be created")).count();
    }

    private static boolean timerServiceLogged(WildFlyInstance server) throws IOException {
        String log = Files.exists(server.logFile()) ? Files.readString(server.logFile()) : "";
        return log.contains("WFLYEJB0020") || log.contains("WFLYEJB0022");
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
