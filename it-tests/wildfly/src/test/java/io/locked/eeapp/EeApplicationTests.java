package io.locked.eeapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.contract.CriticalSection;
import io.locked.contract.HistoryChecker;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the test application (io.locked.eeapp, the same WAR on every Jakarta EE server) must show on
 * two running servers of one kind, on one database: exclusion across them in both modes, a container
 * transaction left intact, MicroProfile Config overriding the annotation, and the readiness check.
 * Each server's test class starts its servers once and says how to reach them.
 */
public abstract class EeApplicationTests {
    private static final int CLIENTS_PER_SERVER = 4;
    private static final int CALLS_PER_CLIENT = 25;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** A running server with the application deployed. */
    public interface Server {
        String name();

        /** @return the application's root */
        URI http();

        /** @return the server's MicroProfile Health readiness endpoint */
        URI readiness();
    }

    /** @return the two running servers */
    protected abstract List<? extends Server> servers();

    /** @return the kind of server, for the figures printed */
    protected abstract String label();

    @ParameterizedTest
    @ValueSource(strings = {"pessimistic", "optimistic"})
    void clientsOfBothServersNeverOverlapAndTheCounterEndsExact(String mode) throws Exception {
        String counter = mode + "-" + UUID.randomUUID();
        // the counter's row first, alone: the race under test is the read-then-write, not the insert
        assertEquals(200, post(servers().get(0).http().resolve("counter/" + counter + "/" + mode)).statusCode());
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS_PER_SERVER * servers().size());
        List<Future<Integer>> calls = new ArrayList<>();
        for (Server server : servers()) {
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
        for (Server server : servers()) {
            for (String line : get(server.http().resolve("history")).body().split("\n")) {
                if (line.startsWith(counter + " ")) {
                    sections.add(CriticalSection.parse(line.substring(counter.length() + 1)));
                }
            }
        }
        List<String> overlaps = HistoryChecker.violations(sections);
        long finalCount = Long.parseLong(get(servers().get(1).http().resolve("counter/" + counter)).body().trim());
        System.out.printf("[" + label() + "] %s: %d cycles through %d servers, %d sections recorded, %d overlaps, counter %d%n",
                mode, cycles, servers().size(), sections.size(), overlaps.size(), finalCount);

        assertEquals(cycles, sections.size(), "every call recorded one section");
        assertTrue(overlaps.isEmpty(), "overlapping sections: " + overlaps);
        assertEquals(cycles, finalCount, "the non-atomic counter lost increments");
    }

    @Test
    void aLockedCallInsideAContainerTransactionLeavesItIntactAndCommitsItsOwnWriteFirst() throws Exception {
        String counter = "orders-" + UUID.randomUUID();
        URI orders = servers().get(0).http();
        // status 0 is jakarta.transaction.Status.STATUS_ACTIVE: active, not marked rollback-only
        assertEquals("same=true status=0 counted=1 committed=1 kept=true",
                post(orders.resolve("orders/" + UUID.randomUUID() + "?counter=" + counter)).body());
        assertEquals("same=true status=0 counted=2 committed=2 kept=false",
                post(orders.resolve("orders/" + UUID.randomUUID() + "?counter=" + counter + "&rollBack=true")).body(),
                "the caller's rollback takes its own write only; the holder's was committed before");
        assertEquals("3", post(servers().get(1).http().resolve("counter/" + counter + "/optimistic")).body(),
                "the next holder, on the other server, sees both holders' committed writes");
    }

    @Test
    void microProfileConfigOfTheApplicationOverridesTheAnnotation() throws Exception {
        assertEquals("runs=0 wait=PT0S outcome=SKIP", post(servers().get(1).http().resolve("reports/daily-while-held")).body(),
                "wait and on-timeout from microprofile-config.properties, seen in the LockNotAcquired event");
    }

    @Test
    void theReadinessCheckLockedIsUpOnTheServersHealthEndpoint() throws Exception {
        for (Server server : servers()) {
            // Locked's own check; the server's overall status also counts its deployments
            String body = get(server.readiness()).body().replaceAll("\\s", ""); // Quarkus indents its JSON
            assertTrue(body.matches("(?s).*\\{\"name\":\"locked\",\"status\":\"UP\",\"data\":\\{[^}]*\"store\":\"answering\".*"), body);
        }
    }

    protected HttpResponse<String> post(URI uri) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    protected HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
    }

}
