package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.contract.Await;
import io.locked.contract.DelegatingRepository;
import io.locked.internal.cdi.LockEvents;
import io.locked.internal.cdi.LockManagerProducer;
import io.locked.internal.cdi.LockedExtension;
import io.locked.internal.cdi.LockedInterceptor;
import io.locked.internal.cdi.LockedMethods;
import io.locked.internal.definition.HandOverSettings;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.testing.InMemoryLockRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code locked.hand-over.lease-keep} reaches the CDI manager: an optimistic release is not sent by the releasing
 * thread but kept, and sent when the keep ends, by the manager's timer. Without the setting the releasing thread
 * sends it (the check holds whatever the machine's speed: it asks who sent the release, not when).
 */
@EnableWeld
class LeaseKeepSettingWeldTest {
    private static final List<Thread> RELEASED_BY = new CopyOnWriteArrayList<>();
    private static final LockRepository STORE = new DelegatingRepository(new InMemoryLockRepository()) {
        @Override
        public boolean releaseLease(Lease lease) {
            RELEASED_BY.add(Thread.currentThread());
            return super.releaseLease(lease);
        }
    };

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(new Weld()
            .disableDiscovery()
            .addExtension(new LockedExtension())
            .addBeanClasses(LockedInterceptor.class, LockedMethods.class, LockEvents.class, LockManagerProducer.class,
                    Infrastructure.class))
            .build();

    @Inject
    LockManager locks;

    @BeforeAll
    static void keepLeases() {
        System.setProperty(HandOverSettings.LEASE_KEEP, "5ms");
    }

    @AfterAll
    static void clear() {
        System.clearProperty(HandOverSettings.LEASE_KEEP);
    }

    @ApplicationScoped
    static class Infrastructure {
        @Produces
        @ApplicationScoped
        LockRepository repository() {
            return STORE;
        }
    }

    @Test
    void theReleaseIsKeptAndSentWhenTheKeepEnds() throws Exception {
        locks.acquire(LockRequest.of("keep:cdi").mode(LockMode.OPTIMISTIC)).close();
        Await.until(() -> !RELEASED_BY.isEmpty(), Duration.ofSeconds(30), "the release at the keep's end");
        assertEquals(1, RELEASED_BY.size());
        assertNotEquals(Thread.currentThread(), RELEASED_BY.get(0), "the releasing thread sent the release: nothing was kept");
    }
}
