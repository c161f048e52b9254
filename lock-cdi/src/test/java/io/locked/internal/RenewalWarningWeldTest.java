package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockMode;
import io.locked.api.Locked;
import io.locked.api.event.LockAcquired;
import io.locked.api.event.LockLost;
import io.locked.api.event.LockReleased;
import io.locked.api.event.LockRenewalFailed;
import io.locked.internal.cdi.LockEvents;
import io.locked.internal.cdi.LockManagerProducer;
import io.locked.internal.cdi.LockedExtension;
import io.locked.internal.cdi.LockedInterceptor;
import io.locked.internal.cdi.LockedMethods;
import io.locked.spi.LockRepository;
import io.locked.testing.InMemoryLockRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.Test;

/**
 * A {@code @Locked} method whose lease's renewal fails while it runs: the application observes a
 * {@link LockRenewalFailed} before the method ends, and the lock, never lost, is released as usual.
 */
@EnableWeld
class RenewalWarningWeldTest {

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(new Weld()
            .disableDiscovery()
            .addExtension(new LockedExtension())
            .addBeanClasses(LockedInterceptor.class, LockedMethods.class, LockEvents.class, LockManagerProducer.class,
                    Infrastructure.class, Job.class, Observer.class))
            .build();

    @Inject
    Job job;

    @Inject
    Observer observer;

    @ApplicationScoped
    static class Infrastructure {
        static final InMemoryLockRepository STORE = new InMemoryLockRepository();

        @Produces
        @ApplicationScoped
        LockRepository repository() {
            return STORE;
        }
    }

    @ApplicationScoped
    static class Observer {
        final List<Object> events = new CopyOnWriteArrayList<>();
        final CountDownLatch warned = new CountDownLatch(1);

        void acquired(@Observes LockAcquired event) {
            events.add(event);
        }

        void warned(@Observes LockRenewalFailed event) {
            events.add(event);
            warned.countDown();
        }

        void lost(@Observes LockLost event) {
            events.add(event);
        }

        void released(@Observes LockReleased event) {
            events.add(event);
        }

        List<Object> events() {
            return events;
        }

        boolean awaitWarning() throws InterruptedException {
            // a bound for a hung test, not a measure: the first renewal is due 2 s in
            return warned.await(1, TimeUnit.MINUTES);
        }
    }

    @ApplicationScoped
    static class Job {
        @Inject
        Observer observer;

        /** Runs until the application was warned, with the store's renewals cut meanwhile. */
        @Locked(value = "nightly", mode = LockMode.OPTIMISTIC, lease = "6s")
        boolean run() throws InterruptedException {
            Infrastructure.STORE.cutRenewals();
            return observer.awaitWarning();
        }
    }

    @Test
    void aFailedRenewalIsObservedWhileTheMethodRuns() throws InterruptedException {
        assertTrue(job.run(), "warned before the method ended");

        List<Object> events = observer.events();
        LockAcquired acquired = (LockAcquired) events.get(0);
        LockRenewalFailed warning = (LockRenewalFailed) events.get(1);
        assertEquals("nightly", warning.key());
        assertEquals(LockMode.OPTIMISTIC, warning.mode());
        assertEquals(acquired.token(), warning.token());
        assertTrue(warning.timeLeft().compareTo(Duration.ZERO) > 0 && warning.timeLeft().compareTo(Duration.ofSeconds(6)) < 0,
                warning.toString());
        assertTrue(warning.cause().contains("renewals cut"), warning.cause());
        assertTrue(events.get(events.size() - 1) instanceof LockReleased, "released as usual: " + events);
        assertFalse(events.stream().anyMatch(LockLost.class::isInstance), "a warning, not a loss: " + events);
    }
}
