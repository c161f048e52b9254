package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.contract.Await;
import io.locked.internal.cdi.LockEvents;
import io.locked.internal.cdi.LockManagerProducer;
import io.locked.internal.cdi.LockedExtension;
import io.locked.internal.cdi.LockedInterceptor;
import io.locked.internal.cdi.LockedMethods;
import io.locked.internal.definition.HandOverSettings;
import io.locked.spi.LockRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The hand-over keys reach the CDI manager. {@code locked.hand-over.row-run=0s}: on a store that passes row locks
 * on, a release that another thread waits for ends its hold, and that thread takes the key from the store.
 * {@code locked.hand-over.lease-keep=5ms}: an optimistic release is not sent by the releasing thread but kept,
 * and sent when the keep ends by the manager's timer (the check asks who sent it, not when: it holds whatever the
 * machine's speed). Each fails with the producer's wiring of its key removed.
 */
@EnableWeld
class HandOverSettingsWeldTest {
    private static final RowPassingStore STORE = new RowPassingStore();

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
    static void turnTheRowHandOverOffAndKeepLeases() {
        System.setProperty(HandOverSettings.ROW_RUN, "0s");
        System.setProperty(HandOverSettings.LEASE_KEEP, "5ms");
    }

    @AfterAll
    static void clear() {
        System.clearProperty(HandOverSettings.ROW_RUN);
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
    void theWaitingThreadTakesTheKeyFromTheStore() throws Exception {
        LockHandle first = locks.acquire(RowHandOverWiringTest.REQUEST);
        CompletableFuture<Long> next = RowHandOverWiringTest.waiterOf(locks);

        first.close();

        assertTrue(next.get(30, TimeUnit.SECONDS) > first.token(), "the waiting thread's token");
        assertEquals(0, STORE.handOvers.get(), "hand-overs");
        assertEquals(2, STORE.lockStatements.get(), "lock statements");
    }

    @Test
    void theLeaseReleaseIsKeptAndSentWhenTheKeepEnds() throws Exception {
        locks.acquire(LockRequest.of("keep:cdi").mode(LockMode.OPTIMISTIC)).close();
        Await.until(() -> !STORE.leasesReleasedBy.isEmpty(), Duration.ofSeconds(30), "the release at the keep's end");
        assertEquals(1, STORE.leasesReleasedBy.size());
        assertNotEquals(Thread.currentThread(), STORE.leasesReleasedBy.get(0),
                "the releasing thread sent the release: nothing was kept");
    }
}
