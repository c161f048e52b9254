package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.Locked;
import io.locked.internal.cdi.LockEvents;
import io.locked.internal.cdi.LockManagerProducer;
import io.locked.internal.cdi.LockedExtension;
import io.locked.internal.cdi.LockedInterceptor;
import io.locked.internal.cdi.LockedMethods;
import io.locked.spi.LockRepository;
import io.locked.testing.InMemoryLockRepository;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.Test;

/** {@code @Locked} methods report to the application's {@link MeterRegistry} bean, tagged by key template. */
@EnableWeld
class LockedMetricsWeldTest {

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(new Weld()
            .disableDiscovery()
            .addExtension(new LockedExtension())
            .addBeanClasses(LockedInterceptor.class, LockedMethods.class, LockEvents.class, LockManagerProducer.class,
                    Infrastructure.class, Shipping.class))
            .build();

    @Inject
    Shipping shipping;

    @Inject
    MeterRegistry registry;

    @ApplicationScoped
    static class Infrastructure {
        @Produces
        @ApplicationScoped
        LockRepository repository() {
            return new InMemoryLockRepository();
        }

        @Produces
        @ApplicationScoped
        MeterRegistry registry() {
            return new SimpleMeterRegistry();
        }
    }

    @ApplicationScoped
    static class Shipping {
        @Locked("order:{orderId}")
        void ship(String orderId) {
        }

        @Locked
        void nightly() {
        }
    }

    @Test
    void locksAreCountedOnTheBeanRegistryUnderTheirTemplate() {
        shipping.ship("1");
        shipping.ship("2");
        shipping.ship("2");
        shipping.nightly();

        assertEquals(3, registry.get("locked.acquisitions")
                .tags("name", "order:{orderId}", "mode", "pessimistic", "outcome", "acquired").counter().count());
        assertEquals(3, registry.get("locked.hold").tags("name", "order:{orderId}", "outcome", "released").timer().count());
        String nightly = Shipping.class.getName() + "#nightly";
        assertEquals(1, registry.get("locked.acquisitions").tags("name", nightly, "outcome", "acquired").counter().count());
        for (Meter meter : registry.getMeters()) {
            String name = meter.getId().getTag("name");
            assertTrue(name.equals("order:{orderId}") || name.equals(nightly), meter.getId() + " is not tagged by template");
        }
    }
}
