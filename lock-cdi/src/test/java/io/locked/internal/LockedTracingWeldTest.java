package io.locked.internal;

import static io.opentelemetry.api.common.AttributeKey.stringKey;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.locked.api.Locked;
import io.locked.internal.cdi.LockEvents;
import io.locked.internal.cdi.LockManagerProducer;
import io.locked.internal.cdi.LockedExtension;
import io.locked.internal.cdi.LockedInterceptor;
import io.locked.internal.cdi.LockedMethods;
import io.locked.spi.LockRepository;
import io.locked.testing.InMemoryLockRepository;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.data.SpanData;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.util.List;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With {@code locked.telemetry.enabled=true}, a {@code @Locked} method traces its lock on the application's
 * {@link OpenTelemetry} bean (as MicroProfile Telemetry and Quarkus provide one), under the caller's span,
 * and counts it in OpenTelemetry metrics under its key template.
 */
@EnableWeld
class LockedTracingWeldTest {
    private static final InMemoryTelemetry TELEMETRY = new InMemoryTelemetry();

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(new Weld()
            .disableDiscovery()
            .addExtension(new LockedExtension())
            .addBeanClasses(LockedInterceptor.class, LockedMethods.class, LockEvents.class, LockManagerProducer.class,
                    Infrastructure.class, Shipping.class))
            .build();

    @Inject
    Shipping shipping;

    @BeforeAll
    static void switchOn() {
        System.setProperty("locked.telemetry.enabled", "true");
    }

    @AfterAll
    static void switchOff() {
        System.clearProperty("locked.telemetry.enabled");
        TELEMETRY.close();
    }

    @ApplicationScoped
    static class Infrastructure {
        @Produces
        @ApplicationScoped
        LockRepository repository() {
            return new InMemoryLockRepository();
        }

        @Produces
        @ApplicationScoped
        OpenTelemetry openTelemetry() {
            return TELEMETRY.sdk;
        }
    }

    @ApplicationScoped
    static class Shipping {
        @Locked("order:{orderId}")
        void ship(String orderId) {
        }
    }

    @Test
    void aLockedMethodTracesItsLockUnderTheCallersSpan() {
        Span request = TELEMETRY.caller().spanBuilder("POST /orders/42/shipment").startSpan();
        try (Scope inRequest = request.makeCurrent()) {
            shipping.ship("42");
        } finally {
            request.end();
        }

        List<SpanData> spans = TELEMETRY.lockSpans();
        assertEquals(List.of("wait_for lock", "hold lock"), spans.stream().map(SpanData::getName).toList());
        for (SpanData span : spans) {
            assertEquals(request.getSpanContext().getSpanId(), span.getParentSpanId());
            assertEquals("order:42", span.getAttributes().get(stringKey("locked.key")));
            assertEquals("order:{orderId}", span.getAttributes().get(stringKey("locked.name")));
        }
        assertEquals(1, InMemoryTelemetry.sum(TELEMETRY.collect().get("locked.acquisitions"),
                Attributes.of(stringKey("locked.name"), "order:{orderId}", stringKey("locked.outcome"), "acquired")));
    }

    @Test
    void switchedOffTheBeanIsNotUsed() {
        int spansBefore = TELEMETRY.lockSpans().size();
        // the manager is built at its first use, in this test's own container: the switch is read then
        System.clearProperty("locked.telemetry.enabled");
        try {
            shipping.ship("7");
        } finally {
            switchOn();
        }
        assertEquals(spansBefore, TELEMETRY.lockSpans().size(), "no span while switched off");
    }
}
