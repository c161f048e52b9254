package io.locked.quarkus.app;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/** The in-process tests' span exporter: Quarkus exports to every {@code SpanExporter} bean, synchronously. */
@ApplicationScoped
public class InMemorySpans {
    @Produces
    @Singleton
    InMemorySpanExporter exporter() {
        return InMemorySpanExporter.create();
    }
}
