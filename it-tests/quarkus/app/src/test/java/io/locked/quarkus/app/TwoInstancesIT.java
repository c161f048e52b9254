package io.locked.quarkus.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.contract.CriticalSection;
import io.locked.contract.HistoryChecker;
import java.io.IOException;
import java.net.ServerSocket;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two instances of the packaged application (quarkus-run.jar, as users run it), each a JVM of its
 * own on its own port, on one database. HTTP clients increment one non-atomic counter through both,
 * in each lock mode; the sections both instances recorded go to the independent history checker,
 * and the counter must end exact.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TwoInstancesIT {
    private static final int CLIENTS_PER_INSTANCE = 4;
    private static final int CALLS_PER_CLIENT = 25;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<Instance> instances = new ArrayList<>();

    /** One running instance. */
    private record Instance(String name, Process process, URI base, Path log, long bootMillis) {
    }

    @BeforeAll
    void startTwoInstances() throws Exception {
        Path jar = Path.of(System.getProperty("locked.quarkus.app", "target/quarkus-app/quarkus-run.jar"));
        assertTrue(Files.exists(jar), "the packaged application is missing: " + jar);
        for (String name : List.of("a", "b")) {
            int port = freePort();
            Path log = Files.createTempFile("quarkus-" + name + "-", ".log");
            long started = System.nanoTime();
            Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Dquarkus.http.port=" + port, "-Dlocked-app.instance=" + name, "-jar", jar.toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            URI base = URI.create("http://127.0.0.1:" + port);
            instances.add(new Instance(name, process, base, log, 0));
            awaitReady(base, process, log);
            long bootMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            instances.set(instances.size() - 1, new Instance(name, process, base, log, bootMillis));
            System.out.printf("[two-instances] instance %s on port %d ready in %d ms (process start to readiness UP)%n",
                    name, port, bootMillis);
        }
    }

    @AfterAll
    void stopInstances() throws InterruptedException {
        for (Instance instance : instances) {
            instance.process().destroy();
            if (!instance.process().waitFor(30, TimeUnit.SECONDS)) {
                instance.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"pessimistic", "optimistic"})
    void clientsOfBothInstancesNeverOverlapAndTheCounterEndsExact(String mode) throws Exception {
        String counter = mode + "-" + UUID.randomUUID();
        // the counter's row first, alone: the race under test is the read-then-write, not the insert
        assertEquals(200, send(HttpRequest.newBuilder(instances.get(0).base().resolve("/counter/" + counter + "/" + mode))
                .POST(HttpRequest.BodyPublishers.noBody()).build()).statusCode());
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS_PER_INSTANCE * instances.size());
        List<Future<Integer>> calls = new ArrayList<>();
        for (Instance instance : instances) {
            for (int client = 0; client < CLIENTS_PER_INSTANCE; client++) {
                calls.add(clients.submit(() -> {
                    for (int call = 0; call < CALLS_PER_CLIENT; call++) {
                        HttpResponse<String> response = send(HttpRequest.newBuilder(
                                instance.base().resolve("/counter/" + counter + "/" + mode))
                                .POST(HttpRequest.BodyPublishers.noBody()).build());
                        assertEquals(200, response.statusCode(), () -> "instance " + instance.name() + ": " + response.body());
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
        for (Instance instance : instances) {
            for (String line : send(HttpRequest.newBuilder(instance.base().resolve("/counter/history")).build()).body().split("\n")) {
                if (line.startsWith(counter + " ")) {
                    sections.add(CriticalSection.parse(line.substring(counter.length() + 1)));
                }
            }
        }
        List<String> overlaps = HistoryChecker.violations(sections);
        long finalCount = Long.parseLong(send(HttpRequest.newBuilder(instances.get(0).base().resolve("/counter/" + counter))
                .build()).body().trim());
        System.out.printf("[two-instances] %s: %d cycles through %d instances, %d sections recorded, %d overlaps, counter %d%n",
                mode, cycles, instances.size(), sections.size(), overlaps.size(), finalCount);

        assertEquals(cycles, sections.size(), "every call recorded one section");
        assertTrue(overlaps.isEmpty(), "overlapping sections: " + overlaps);
        assertEquals(cycles, finalCount, "the non-atomic counter lost increments");
    }

    private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** Polls the readiness endpoint (which includes Locked's check) until UP, or fails with the instance's log. */
    private void awaitReady(URI base, Process process, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("the instance exited with " + process.exitValue() + ":\n" + Files.readString(log));
            }
            try {
                HttpResponse<String> ready = send(HttpRequest.newBuilder(base.resolve("/q/health/ready"))
                        .timeout(Duration.ofSeconds(5)).build());
                if (ready.statusCode() == 200) {
                    return;
                }
                last = ready.statusCode() + " " + ready.body();
            } catch (IOException notYet) {
                last = notYet.toString();
            }
            Thread.sleep(100); // polling interval of the readiness endpoint
        }
        throw new AssertionError("the instance did not become ready within 120 s (last: " + last + "):\n" + Files.readString(log));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
