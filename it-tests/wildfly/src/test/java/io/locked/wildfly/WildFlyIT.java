package io.locked.wildfly;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.contract.CriticalSection;
import io.locked.contract.HistoryChecker;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The test WAR on two WildFly 39 servers (MicroProfile configuration), each with its own ports, on
 * one MariaDB database through a datasource deployed as {@code app-ds.xml}; the lock table lives in
 * the application's own JTA unit. Servers start once for the class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WildFlyIT {
    private static final int CLIENTS_PER_SERVER = 4;
    private static final int CALLS_PER_CLIENT = 25;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<WildFlyInstance> servers = new ArrayList<>();

    @BeforeAll
    void startTwoServers() throws Exception {
        Path app = Path.of(System.getProperty("wildfly.app"));
        Path driver = Path.of(System.getProperty("wildfly.driver"));
        Path dataSource = Path.of(WildFlyIT.class.getResource("/app-ds.xml").toURI());
        int offset = 100;
        for (String name : List.of("a", "b")) {
            WildFlyInstance server = new WildFlyInstance(name, offset);
            servers.add(server);
            server.prepare(driver, dataSource, app).start();
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

    @ParameterizedTest
    @ValueSource(strings = {"pessimistic", "optimistic"})
    void clientsOfBothServersNeverOverlapAndTheCounterEndsExact(String mode) throws Exception {
        String counter = mode + "-" + UUID.randomUUID();
        // the counter's row first, alone: the race under test is the read-then-write, not the insert
        assertEquals(200, post(servers.get(0).http().resolve("counter/" + counter + "/" + mode)).statusCode());
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS_PER_SERVER * servers.size());
        List<Future<Integer>> calls = new ArrayList<>();
        for (WildFlyInstance server : servers) {
            for (int client = 0; client < CLIENTS_PER_SERVER; client++) {
                calls.add(clients.submit(() -> {
                    for (int call = 0; call < CALLS_PER_CLIENT; call++) {
                        HttpResponse<String> response = post(server.http().resolve("counter/" + counter + "/" + mode));
                        assertEquals(200, response.statusCode(), () -> "server " + server.name() + ": " + response.body());
                    }
                    return CALLS_PER_CLIENT;
                }));
            }
        }
        int cycles = 1;
        for (Future<Integer> call : calls) {
            cycles += call.get(5, TimeUnit.MINUTES);
        }
        clients.shutdown();

        List<CriticalSection> sections = new ArrayList<>();
        for (WildFlyInstance server : servers) {
            for (String line : get(server.http().resolve("history")).body().split("\n")) {
                if (line.startsWith(counter + " ")) {
                    sections.add(CriticalSection.parse(line.substring(counter.length() + 1)));
                }
            }
        }
        List<String> overlaps = HistoryChecker.violations(sections);
        long finalCount = Long.parseLong(get(servers.get(1).http().resolve("counter/" + counter)).body().trim());
        System.out.printf("[wildfly] %s: %d cycles through %d servers, %d sections recorded, %d overlaps, counter %d%n",
                mode, cycles, servers.size(), sections.size(), overlaps.size(), finalCount);

        assertEquals(cycles, sections.size(), "every call recorded one section");
        assertTrue(overlaps.isEmpty(), "overlapping sections: " + overlaps);
        assertEquals(cycles, finalCount, "the non-atomic counter lost increments");
    }

    @Test
    void aLockedCallInsideAContainerTransactionLeavesItIntactAndCommitsItsOwnWriteFirst() throws Exception {
        String counter = "orders-" + UUID.randomUUID();
        URI orders = servers.get(0).http();
        // status 0 is jakarta.transaction.Status.STATUS_ACTIVE: active, not marked rollback-only
        assertEquals("same=true status=0 counted=1 committed=1 kept=true",
                post(orders.resolve("orders/" + UUID.randomUUID() + "?counter=" + counter)).body());
        assertEquals("same=true status=0 counted=2 committed=2 kept=false",
                post(orders.resolve("orders/" + UUID.randomUUID() + "?counter=" + counter + "&rollBack=true")).body(),
                "the caller's rollback takes its own write only; the holder's was committed before");
        assertEquals("3", post(servers.get(1).http().resolve("counter/" + counter + "/optimistic")).body(),
                "the next holder, on the other server, sees both holders' committed writes");
    }

    @Test
    void microProfileConfigOfTheApplicationOverridesTheAnnotation() throws Exception {
        assertEquals("runs=0 wait=PT0S outcome=SKIP", post(servers.get(1).http().resolve("reports/daily-while-held")).body(),
                "wait and on-timeout from microprofile-config.properties, seen in the LockNotAcquired event");
    }

    @Test
    void theReadinessCheckLockedIsUpOnTheServersHealthEndpoint() throws Exception {
        for (WildFlyInstance server : servers) {
            // Locked's own check; the server's overall status also counts its deployments
            String body = get(server.readiness()).body();
            assertTrue(body.matches("(?s).*\\{\"name\":\"locked\",\"status\":\"UP\",\"data\":\\{[^}]*\"store\":\"answering\".*"), body);
        }
    }

    @Test
    void aBadKeyTemplateFailsTheDeploymentNamingClassMethodAndMember() throws Exception {
        WildFlyInstance server = servers.get(0);
        Path war = server.deployments().resolve("bad-key.war");
        writeMisusedWar(war);
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

    /** A WAR of the misused bean with the lock jars of the application's WAR. */
    private static void writeMisusedWar(Path war) throws IOException {
        Path classes = Path.of(System.getProperty("wildfly.test-classes"));
        Path bean = classes.resolve("io/locked/wildfly/misuse/BadKeyBean.class");
        Path part = war.resolveSibling("bad-key.war.part");
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(part));
             ZipFile app = new ZipFile(System.getProperty("wildfly.app"))) {
            entry(out, "WEB-INF/classes/io/locked/wildfly/misuse/BadKeyBean.class", Files.readAllBytes(bean));
            entry(out, "WEB-INF/beans.xml", app.getInputStream(app.getEntry("WEB-INF/beans.xml")).readAllBytes());
            for (ZipEntry library : app.stream().filter(e -> e.getName().startsWith("WEB-INF/lib/") && !e.isDirectory()).toList()) {
                entry(out, library.getName(), app.getInputStream(library).readAllBytes());
            }
        }
        Files.move(part, war); // whole, so that the scanner never sees half a WAR
    }

    private static void entry(ZipOutputStream out, String name, byte[] content) throws IOException {
        out.putNextEntry(new ZipEntry(name));
        out.write(content);
        out.closeEntry();
    }

    private HttpResponse<String> post(URI uri) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
    }

}
