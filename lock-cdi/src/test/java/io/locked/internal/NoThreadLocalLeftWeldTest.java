package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.locked.api.LockManager;
import io.locked.api.LockRequest;
import io.locked.api.Locked;
import io.locked.internal.cdi.LockEvents;
import io.locked.internal.cdi.LockManagerProducer;
import io.locked.internal.cdi.LockedExtension;
import io.locked.internal.cdi.LockedInterceptor;
import io.locked.internal.cdi.LockedMethods;
import io.locked.spi.LockRepository;
import io.locked.testing.InMemoryLockRepository;
import io.locked.testing.ThreadLocalValues;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An application started, used from a pooled thread and stopped, twice in one JVM, as a server redeploys it:
 * the pooled thread keeps no thread-local value of Locked's, which would pin the first application's classes.
 */
class NoThreadLocalLeftWeldTest {
    private final ExecutorService pool = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
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
    static class Shipping {
        @Inject
        LockManager locks;

        @Locked("order:{orderId}")
        long ship(String orderId) throws Exception {
            return locks.callLocked(LockRequest.of("carrier"), () -> locks.current("order:" + orderId).orElseThrow().token());
        }
    }

    @Test
    void aRedeployedApplicationLeavesNothingOnItsThreads() throws Exception {
        for (int deployment = 1; deployment <= 2; deployment++) {
            WeldContainer application = new Weld("locked-redeploy-" + deployment)
                    .disableDiscovery()
                    .addExtension(new LockedExtension())
                    .addBeanClasses(LockedInterceptor.class, LockedMethods.class, LockEvents.class, LockManagerProducer.class,
                            Infrastructure.class, Shipping.class)
                    .initialize();
            try {
                Shipping shipping = application.select(Shipping.class).get();
                pool.submit(() -> shipping.ship("7")).get(30, TimeUnit.SECONDS);
            } finally {
                application.shutdown();
            }
            List<String> left = pool.submit(() -> ThreadLocalValues.lockedValuesOf(Thread.currentThread()))
                    .get(30, TimeUnit.SECONDS);
            assertEquals(List.of(), left, "after deployment " + deployment + " stopped, the pooled thread still holds");
        }
    }
}
