package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.spi.LockRepository;
import io.locked.testing.InMemoryLockRepository;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * What spans cost: no call to the store (the calls of a cycle are the same with spans on as off), and
 * the time per cycle on the in-memory store, printed, never asserted: {@code -Dlocked.cost.cycles=50000
 * -Dlocked.cost.rounds=20} for a figure worth reading (the default is a smoke run).
 */
class TelemetryCostTest {
    private static final int CYCLES = Integer.getInteger("locked.cost.cycles", 2_000);
    private static final int ROUNDS = Integer.getInteger("locked.cost.rounds", 3);

    @Test
    void spansAddNoCallToTheStore() {
        for (LockMode mode : LockMode.values()) {
            Map<String, Integer> off = storeCalls(mode, builder -> builder);
            try (InMemoryTelemetry telemetry = new InMemoryTelemetry()) {
                Map<String, Integer> on = storeCalls(mode, builder -> builder.openTelemetry(telemetry.sdk));
                assertEquals(off, on, mode + ": the store calls of 100 cycles");
                assertEquals(200, telemetry.lockSpans().size(), "a wait and a hold per cycle");
            }
        }
    }

    private static Map<String, Integer> storeCalls(LockMode mode, UnaryOperator<LockManagerBuilder> telemetry) {
        Map<String, Integer> calls = new TreeMap<>();
        InMemoryLockRepository store = new InMemoryLockRepository();
        LockRepository counted = (LockRepository) Proxy.newProxyInstance(LockRepository.class.getClassLoader(),
                new Class<?>[] {LockRepository.class}, (proxy, method, args) -> {
                    calls.merge(method.getName(), 1, Integer::sum);
                    try {
                        return method.invoke(store, args);
                    } catch (InvocationTargetException thrown) {
                        throw thrown.getCause();
                    }
                });
        try (LockManager locks = telemetry.apply(LockManagerBuilder.on(counted)).build()) {
            for (int cycle = 0; cycle < 100; cycle++) {
                locks.acquire(LockRequest.of("job:" + (cycle % 10)).name("job").mode(mode)).close();
            }
        }
        return calls;
    }

    /**
     * As an application runs it: spans batched to an exporter (here one that drops them), metrics read
     * now and then. Three managers, alternated: no telemetry, telemetry with no span sampled (the metrics
     * and the span calls alone), telemetry with every span sampled.
     */
    @Test
    void cyclesWithSpansOnAndOff() {
        try (OpenTelemetrySdk unsampled = sdk(Sampler.alwaysOff());
             OpenTelemetrySdk sampled = sdk(Sampler.alwaysOn());
             LockManager plain = LockManagerBuilder.on(new InMemoryLockRepository()).build();
             LockManager metricsOnly = LockManagerBuilder.on(new InMemoryLockRepository()).openTelemetry(unsampled).build();
             LockManager traced = LockManagerBuilder.on(new InMemoryLockRepository()).openTelemetry(sampled).build()) {
            // alternated rounds, the fastest of each kind kept: on shared cores, other work only ever slows a round
            long[] fastest = {Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE};
            for (int round = 0; round < ROUNDS; round++) {
                long[] these = {cycles(plain), cycles(metricsOnly), cycles(traced)};
                for (int i = 0; i < 3; i++) {
                    fastest[i] = Math.min(fastest[i], these[i]);
                }
            }
            System.out.printf("TelemetryCost: %d rounds of %d cycles, fastest round: off %.0f ns/cycle,"
                    + " unsampled %.0f, sampled %.0f%n", ROUNDS, CYCLES, fastest[0] / (double) CYCLES,
                    fastest[1] / (double) CYCLES, fastest[2] / (double) CYCLES);
        }
    }

    private static OpenTelemetrySdk sdk(Sampler sampler) {
        SpanExporter dropping = new SpanExporter() {
            @Override
            public CompletableResultCode export(Collection<SpanData> spans) {
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode flush() {
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode shutdown() {
                return CompletableResultCode.ofSuccess();
            }
        };
        return OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().setSampler(sampler)
                        .addSpanProcessor(BatchSpanProcessor.builder(dropping).build()).build())
                .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(InMemoryMetricReader.create()).build())
                .build();
    }

    private static long cycles(LockManager locks) {
        long start = System.nanoTime();
        for (int cycle = 0; cycle < CYCLES; cycle++) {
            locks.acquire(LockRequest.of("job:" + (cycle % 16)).name("job")).close();
        }
        return System.nanoTime() - start;
    }
}
