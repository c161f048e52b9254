package io.locked.quarkus.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * With {@code quarkus-opentelemetry} and {@code locked.telemetry.enabled=true}, a request that waited for a
 * lock shows it in its own trace: Locked finds Quarkus' {@code OpenTelemetry} bean by itself, and the lock's
 * wait and hold are children of the request's server span, also for a reactive endpoint whose lock is awaited
 * on another thread.
 */
@QuarkusTest
class LockSpansOnQuarkusTest {
    @Inject
    InMemorySpanExporter spans;
    @ConfigProperty(name = "quarkus.http.test-port", defaultValue = "8081")
    int port;

    @Test
    void aReactiveRequestsLockWaitAndHoldAreInItsTrace() throws Exception {
        spans.reset();
        String order = UUID.randomUUID().toString();
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://localhost:" + port + "/reactive/ship/" + order)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());

        List<SpanData> finished = exportedWith("/reactive/ship");
        SpanData server = finished.stream().filter(span -> span.getName().contains("/reactive/ship")).findFirst().orElseThrow();
        Map<String, SpanData> lock = finished.stream()
                .filter(span -> ("ship:" + order).equals(span.getAttributes().get(AttributeKey.stringKey("locked.key"))))
                .collect(Collectors.toMap(SpanData::getName, Function.identity()));
        assertEquals(List.of("hold lock", "wait_for lock"), lock.keySet().stream().sorted().toList(), finished.toString());
        for (SpanData span : lock.values()) {
            assertEquals(server.getTraceId(), span.getTraceId(), span.getName() + " is in the request's trace");
            assertEquals(server.getSpanId(), span.getParentSpanId(), span.getName() + " is a child of the server span");
        }
        assertEquals("acquired", lock.get("wait_for lock").getAttributes().get(AttributeKey.stringKey("locked.outcome")));
        assertFalse(lock.get("hold lock").getAttributes().get(AttributeKey.longKey("locked.token")) == null);
    }

    /** Quarkus exports in batches: waits for the batch that holds the server span, which ends last. */
    private List<SpanData> exportedWith(String serverSpan) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            List<SpanData> finished = spans.getFinishedSpanItems();
            if (finished.stream().anyMatch(span -> span.getName().contains(serverSpan))) {
                return finished;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("within 30 s, no server span was exported: " + finished);
            }
            Thread.sleep(50); // polling the exporter for the batch
        }
    }
}
