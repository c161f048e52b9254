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
import io.opentelemetry.api.GlobalOpenTelemetry;
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
 * With telemetry on and no {@code OpenTelemetry} bean, a {@code @Locked} method traces on
 * {@link GlobalOpenTelemetry}: what the Java agent installs, or what the application set, and with
 * {@code locked.telemetry.key-attribute=name} its spans carry the template, not the key.
 */
@EnableWeld
class LockedTracingGlobalWeldTest {
    private static final InMemoryTelemetry TELEMETRY = new InMemoryTelemetry();

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(new Weld()
            .disableDiscovery()
            .addExtension(new LockedExtension())
            .addBeanClasses(LockedInterceptor.class, LockedMethods.class, LockEvents.class, LockManagerProducer.class,
                    Infrastructure.class, Billing.class))
            .build();

    @Inject
    Billing billing;

    @BeforeAll
    static void switchOn() {
        GlobalOpenTelemetry.resetForTest();
        GlobalOpenTelemetry.set(TELEMETRY.sdk);
        System.setProperty("locked.telemetry.enabled", "true");
        System.setProperty("locked.telemetry.key-attribute", "name");
    }

    @AfterAll
    static void switchOff() {
        System.clearProperty("locked.telemetry.enabled");
        System.clearProperty("locked.telemetry.key-attribute");
        GlobalOpenTelemetry.resetForTest();
        TELEMETRY.close();
    }

    @ApplicationScoped
    static class Infrastructure {
        @Produces
        @ApplicationScoped
        LockRepository repository() {
            return new InMemoryLockRepository();
        }
    }

    @ApplicationScoped
    static class Billing {
        @Locked("invoice:{customer}")
        void invoice(String customer) {
        }
    }

    @Test
    void withoutABeanTheGlobalOpenTelemetryIsUsed() {
        billing.invoice("alice@example.com");

        List<SpanData> spans = TELEMETRY.lockSpans();
        assertEquals(List.of("wait_for lock", "hold lock"), spans.stream().map(SpanData::getName).toList());
        for (SpanData span : spans) {
            assertEquals("invoice:{customer}", span.getAttributes().get(stringKey("locked.name")));
            assertEquals(null, span.getAttributes().get(stringKey("locked.key")), "key-attribute=name keeps the key out");
        }
    }
}
