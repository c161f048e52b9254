package io.locked.wildfly;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.google.protobuf.ByteString;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Locked's spans through WildFly's own MicroProfile Telemetry: one server whose configuration has the
 * {@code opentelemetry} and {@code microprofile-telemetry} subsystems (see {@link WildFlyInstance}),
 * exporting over OTLP/HTTP with protobuf to a receiver this test runs on loopback. The application
 * turns the SDK and Locked's spans on through MicroProfile Config (here as system properties, which
 * it reads like its own {@code microprofile-config.properties}); Locked takes the server's
 * {@code OpenTelemetry} bean, since {@code GlobalOpenTelemetry} is a no-op on WildFly.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WildFlyTelemetryIT {
    private static final Duration EXPORT = Duration.ofSeconds(60);
    private static final String SCOPE = "io.locked";
    private OtlpReceiver receiver;
    private WildFlyInstance server;

    @BeforeAll
    void startServer() throws Exception {
        receiver = OtlpReceiver.start();
        server = new WildFlyInstance("otel", 400);
        server.exportingSpansTo(receiver.endpoint())
                .exportingMetersTo(receiver.endpoint())
                .systemProperty("otel.sdk.disabled", "false")
                .systemProperty("otel.exporter.otlp.protocol", "http/protobuf")
                // the SDK's metrics every second rather than its default minute: the test waits for the first
                .systemProperty("otel.metric.export.interval", "1000")
                .systemProperty("locked.telemetry.enabled", "true")
                .prepare(Path.of(System.getProperty("wildfly.driver")),
                        Path.of(System.getProperty("wildfly.app")))
                .start();
        System.out.printf("[%s] telemetry server booted and ready in %d ms%n", WildFlyInstance.LANE, server.bootMillis());
    }

    @AfterAll
    void stopServer() throws InterruptedException {
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            receiver.close();
        }
    }

    @Test
    void aLockedRequestsWaitAndHoldAreChildrenOfItsServerSpan() throws Exception {
        long started = System.nanoTime();
        // the request continues a trace of the test's own, so that its spans are told apart from any other
        String traceId = randomHex(16);
        String clientSpanId = randomHex(8);
        String counter = "traced-" + UUID.randomUUID().toString().substring(0, 8);
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest
                .newBuilder(server.http().resolve("counter/" + counter + "/pessimistic"))
                .header("traceparent", "00-" + traceId + "-" + clientSpanId + "-01")
                .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());

        // The server span ends after the lock's spans, and the batch processor exports spans in the
        // order they end: once it has arrived, so have they.
        Exported serverSpan = receiver.await(span -> span.traceId().equals(traceId)
                && span.span().getKind() == Span.SpanKind.SPAN_KIND_SERVER
                && span.parentSpanId().equals(clientSpanId), EXPORT)
                .orElseThrow(() -> new AssertionError("no server span of the request's trace within " + EXPORT
                        + "; the receiver got " + receiver.describe() + "\n" + server.log()));
        List<Exported> trace = receiver.spans().stream().filter(span -> span.traceId().equals(traceId)).toList();
        Exported wait = only(trace, "wait_for lock");
        Exported hold = only(trace, "hold lock");

        String key = "counter:" + counter;
        for (Exported lockSpan : List.of(wait, hold)) {
            assertEquals(serverSpan.spanId(), lockSpan.parentSpanId(),
                    lockSpan.span().getName() + " is a child of the request's server span " + serverSpan.span().getName());
            assertEquals(SCOPE, lockSpan.scope(), lockSpan.span().getName());
            assertEquals(Span.SpanKind.SPAN_KIND_INTERNAL, lockSpan.span().getKind(), lockSpan.span().getName());
            assertEquals(key, lockSpan.attribute("locked.key").getStringValue(), lockSpan.span().getName());
            assertEquals("counter:{name}", lockSpan.attribute("locked.name").getStringValue(), lockSpan.span().getName());
            assertEquals("pessimistic", lockSpan.attribute("locked.mode").getStringValue(), lockSpan.span().getName());
        }
        assertEquals("acquired", wait.attribute("locked.outcome").getStringValue());
        assertEquals("released", hold.attribute("locked.outcome").getStringValue());
        assertEquals(wait.attribute("locked.token").getIntValue(), hold.attribute("locked.token").getIntValue(),
                "the wait's token is the hold's");
        System.out.printf("[%s] telemetry: %s under %s (token %d); the test took %d ms%n", WildFlyInstance.LANE,
                trace.stream().map(span -> span.span().getName()).toList(), serverSpan.span().getName(),
                hold.attribute("locked.token").getIntValue(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    /**
     * Locked's metrics through both of WildFly's metrics systems. OpenTelemetry: Locked's instruments
     * on the server's {@code OpenTelemetry}, on both servers. Micrometer: with the {@code micrometer}
     * subsystem on, WildFly lends its Micrometer to the deployment and offers its registry as a
     * {@code MeterRegistry} bean, which Locked takes, and the registry publishes over OTLP; the
     * application bundles no Micrometer (a copy in the WAR would be another {@code MeterRegistry}
     * type, which WildFly's bean does not match). Told apart by their attribute names: Micrometer's
     * tags are {@code name}, {@code outcome}, the instruments' {@code locked.*}. On WildFly Preview 38
     * the meters arrive; on WildFly 39, with the same set-up, none of Locked's meters is published
     * (the server's own are), which docs/operations.md says: the test checks that this is still so,
     * so that a WildFly that publishes them fails it and the docs get updated.
     * Before timers were given their pause detector, each timer's creation made WildFly 39 warn
     * WFLYMMTREXT0015 (the timer asked the registry's config, which WildFly's registry refuses).
     */
    @Test
    void lockedsMetricsReachTheServersMetricsSystems() throws Exception {
        String counter = "metered-" + UUID.randomUUID().toString().substring(0, 8);
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest
                .newBuilder(server.http().resolve("counter/" + counter + "/optimistic"))
                .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        awaitAcquisitions(Map.of("locked.name", "counter:{name}", "locked.mode", "optimistic",
                "locked.outcome", "acquired", "locked.type", "exclusive"));
        Map<String, String> micrometer = Map.of("name", "counter:{name}", "mode", "optimistic", "outcome", "acquired",
                "type", "exclusive");
        if (WildFlyInstance.LANE.equals("wildfly-preview")) {
            awaitAcquisitions(micrometer);
        } else {
            // the SDK exports each second, as the micrometer registry does: wait for two of the registry's
            // exports that began after the call, so that an absence means the registry has no meter of Locked's
            int seen = receiver.micrometerExports();
            if (!receiver.awaitMicrometerExports(seen + 2, EXPORT)) {
                throw new AssertionError("the micrometer subsystem exported nothing within " + EXPORT + ": "
                        + receiver.describe());
            }
            assertFalse(receiver.metricsNamed("locked.").stream().anyMatch(metric -> metric.points().stream()
                            .anyMatch(point -> point.containsKey("name"))),
                    "WildFly 39 now publishes Locked's Micrometer meters: update docs/operations.md and this test");
        }
        List<String> warnings = server.log().lines().filter(line -> line.contains("WARN") && line.contains("WFLYMMTREXT")).toList();
        assertEquals(List.of(), warnings, "the micrometer subsystem warned");
    }

    private void awaitAcquisitions(Map<String, String> attributes) throws InterruptedException {
        receiver.awaitMetric(metric -> metric.name().equals("locked.acquisitions")
                        && metric.points().stream().anyMatch(point -> point.entrySet().containsAll(attributes.entrySet())), EXPORT)
                .orElseThrow(() -> new AssertionError("no locked.acquisitions with " + attributes + " within " + EXPORT
                        + "; the receiver got " + receiver.metricsNamed("locked.") + "\n" + server.log()));
    }

    private static Exported only(List<Exported> trace, String name) {
        List<Exported> named = trace.stream().filter(span -> span.span().getName().equals(name)).toList();
        assertEquals(1, named.size(), "one span named " + name + " in the request's trace, which has "
                + trace.stream().map(span -> span.span().getName()).toList());
        return named.get(0);
    }

    private static String randomHex(int bytes) {
        byte[] id = new byte[bytes];
        do {
            ThreadLocalRandom.current().nextBytes(id);
        } while (HexFormat.of().formatHex(id).chars().allMatch(c -> c == '0')); // all zeros is an invalid id
        return HexFormat.of().formatHex(id);
    }

    /** A span as the receiver got it, with the name of its instrumentation scope. */
    record Exported(String scope, Span span) {
        String traceId() {
            return hex(span.getTraceId());
        }

        String spanId() {
            return hex(span.getSpanId());
        }

        String parentSpanId() {
            return hex(span.getParentSpanId());
        }

        AnyValue attribute(String key) {
            return span.getAttributesList().stream().filter(kv -> kv.getKey().equals(key)).map(KeyValue::getValue)
                    .findFirst().orElseThrow(() -> new AssertionError(span.getName() + " has no attribute " + key
                            + ": " + span.getAttributesList()));
        }

        private static String hex(ByteString id) {
            return HexFormat.of().formatHex(id.toByteArray());
        }
    }

    /**
     * An OTLP/HTTP receiver on loopback: it decodes the trace requests (protobuf, gzipped or not) and
     * keeps their spans, and answers every request, metrics and logs included, with success.
     */
    static final class OtlpReceiver implements AutoCloseable {
        private final HttpServer http;
        private final Queue<Exported> spans = new ConcurrentLinkedQueue<>();
        private final Queue<ExportedMetric> metrics = new ConcurrentLinkedQueue<>();
        private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
        /** Metric exports not sent by the OpenTelemetry SDK (which names itself in its resource): the registry's. */
        private final AtomicInteger micrometerExports = new AtomicInteger();
        private final Queue<String> failures = new ConcurrentLinkedQueue<>();

        private OtlpReceiver(HttpServer http) {
            this.http = http;
        }

        static OtlpReceiver start() throws IOException {
            OtlpReceiver receiver = new OtlpReceiver(HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0));
            receiver.http.createContext("/", receiver::handle);
            receiver.http.start();
            return receiver;
        }

        URI endpoint() {
            return URI.create("http://127.0.0.1:" + http.getAddress().getPort());
        }

        List<Exported> spans() {
            return List.copyOf(spans);
        }

        Optional<Exported> await(Predicate<Exported> wanted, Duration within) throws InterruptedException {
            return await(spans, wanted, within);
        }

        Optional<ExportedMetric> awaitMetric(Predicate<ExportedMetric> wanted, Duration within) throws InterruptedException {
            return await(metrics, wanted, within);
        }

        private static <T> Optional<T> await(Queue<T> received, Predicate<T> wanted, Duration within) throws InterruptedException {
            return poll(() -> received.stream().filter(wanted).findFirst(), within);
        }

        /** Asks again every 50 ms what the exporters sent, until it finds something or the time is up. */
        private static <T> Optional<T> poll(Supplier<Optional<T>> look, Duration within) throws InterruptedException {
            long deadline = System.nanoTime() + within.toNanos();
            while (System.nanoTime() < deadline) {
                Optional<T> found = look.get();
                if (found.isPresent()) {
                    return found;
                }
                Thread.sleep(50);
            }
            return Optional.empty();
        }

        int micrometerExports() {
            return micrometerExports.get();
        }

        /** @return whether the micrometer registry's exports reached that count within the time */
        boolean awaitMicrometerExports(int count, Duration within) throws InterruptedException {
            return poll(() -> Optional.of(micrometerExports.get()).filter(exports -> exports >= count), within).isPresent();
        }

        /** @return the metrics received whose names start so, with their data points' attributes */
        List<ExportedMetric> metricsNamed(String prefix) {
            return metrics.stream().filter(metric -> metric.name().startsWith(prefix)).toList();
        }

        /** @return the requests per path, and the names of the spans received */
        String describe() {
            return new TreeMap<>(requests) + " with spans " + spans.stream().map(span -> span.span().getName()).toList()
                    + ", " + micrometerExports + " of them the micrometer registry's, and metrics "
                    + metrics.stream().map(ExportedMetric::name).distinct().sorted().toList()
                    + (failures.isEmpty() ? "" : "; undecodable: " + failures.peek());
        }

        private void handle(HttpExchange exchange) throws IOException {
            try {
                receive(exchange);
            } catch (IOException | RuntimeException e) {
                failures.add(exchange.getRequestHeaders().entrySet() + ": " + e);
                throw e;
            }
        }

        private void receive(HttpExchange exchange) throws IOException {
            try (exchange) {
                String path = exchange.getRequestURI().getPath();
                requests.computeIfAbsent(exchange.getRequestMethod() + " " + path, p -> new AtomicInteger()).incrementAndGet();
                byte[] body;
                try (InputStream in = exchange.getRequestBody()) {
                    body = in.readAllBytes();
                }
                byte[] answer = new byte[0];
                if (path.endsWith("/v1/traces")) {
                    for (ResourceSpans resource : ExportTraceServiceRequest.parseFrom(unzipped(exchange, body)).getResourceSpansList()) {
                        for (ScopeSpans scope : resource.getScopeSpansList()) {
                            scope.getSpansList().forEach(span -> spans.add(new Exported(scope.getScope().getName(), span)));
                        }
                    }
                    answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
                } else if (path.endsWith("/v1/metrics")) {
                    for (ResourceMetrics resource : ExportMetricsServiceRequest.parseFrom(unzipped(exchange, body)).getResourceMetricsList()) {
                        if (resource.getResource().getAttributesList().stream().noneMatch(kv -> kv.getKey().equals("telemetry.sdk.name")
                                && kv.getValue().getStringValue().equals("opentelemetry"))) {
                            micrometerExports.incrementAndGet();
                        }
                        for (ScopeMetrics scope : resource.getScopeMetricsList()) {
                            scope.getMetricsList().forEach(metric -> metrics.add(ExportedMetric.of(metric)));
                        }
                    }
                    answer = ExportMetricsServiceResponse.getDefaultInstance().toByteArray();
                }
                exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
                exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
                exchange.getResponseBody().write(answer);
            }
        }

        private static byte[] unzipped(HttpExchange exchange, byte[] body) throws IOException {
            if (!"gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
                return body;
            }
            try (InputStream gunzip = new GZIPInputStream(new ByteArrayInputStream(body))) {
                return gunzip.readAllBytes();
            }
        }

        @Override
        public void close() {
            http.stop(0);
        }
    }

    /** A metric as the receiver got it: its name and the attributes of each of its data points. */
    record ExportedMetric(String name, List<Map<String, String>> points) {
        static ExportedMetric of(Metric metric) {
            List<List<KeyValue>> attributes = switch (metric.getDataCase()) {
                case SUM -> metric.getSum().getDataPointsList().stream().map(NumberDataPoint::getAttributesList).toList();
                case GAUGE -> metric.getGauge().getDataPointsList().stream().map(NumberDataPoint::getAttributesList).toList();
                case HISTOGRAM -> metric.getHistogram().getDataPointsList().stream().map(HistogramDataPoint::getAttributesList).toList();
                default -> List.of();
            };
            return new ExportedMetric(metric.getName(), attributes.stream().map(ExportedMetric::asMap).toList());
        }

        private static Map<String, String> asMap(List<KeyValue> attributes) {
            Map<String, String> map = new TreeMap<>();
            attributes.forEach(kv -> map.put(kv.getKey(), kv.getValue().getStringValue()));
            return map;
        }
    }
}
