package io.locked.internal;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** An OpenTelemetry SDK whose spans and metrics stay in memory for a test to read. */
final class InMemoryTelemetry implements AutoCloseable {
    static final String SCOPE = "io.locked";
    final InMemorySpanExporter spans = InMemorySpanExporter.create();
    final InMemoryMetricReader metrics = InMemoryMetricReader.create();
    final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
            .build();

    /** @return a tracer of the test's own, for the caller's spans */
    Tracer caller() {
        return sdk.getTracer("test");
    }

    /** @return the ended spans of Locked's scope, in the order they ended */
    List<SpanData> lockSpans() {
        return spans.getFinishedSpanItems().stream()
                .filter(span -> span.getInstrumentationScopeInfo().getName().equals(SCOPE)).toList();
    }

    /** @return the ended spans of Locked's scope with that name */
    List<SpanData> lockSpans(String name) {
        return lockSpans().stream().filter(span -> span.getName().equals(name)).toList();
    }

    /** @return Locked's metrics as collected now, by name */
    Map<String, MetricData> collect() {
        Collection<MetricData> all = metrics.collectAllMetrics();
        return all.stream().filter(metric -> metric.getInstrumentationScopeInfo().getName().equals(SCOPE))
                .collect(java.util.stream.Collectors.toMap(MetricData::getName, metric -> metric));
    }

    /** @return the sum of a counter's points whose attributes include the given ones */
    static long sum(MetricData metric, Attributes having) {
        return metric.getLongSumData().getPoints().stream().filter(point -> includes(point.getAttributes(), having))
                .mapToLong(LongPointData::getValue).sum();
    }

    /** @return how many values a histogram recorded at points whose attributes include the given ones */
    static long count(MetricData metric, Attributes having) {
        return metric.getHistogramData().getPoints().stream().filter(point -> includes(point.getAttributes(), having))
                .mapToLong(HistogramPointData::getCount).sum();
    }

    private static boolean includes(Attributes attributes, Attributes having) {
        for (Map.Entry<AttributeKey<?>, Object> entry : having.asMap().entrySet()) {
            if (!entry.getValue().equals(attributes.get(entry.getKey()))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        sdk.close();
    }
}
