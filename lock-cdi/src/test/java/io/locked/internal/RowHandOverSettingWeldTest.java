package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
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
 * {@code locked.hand-over.row-run=0s} reaches the CDI manager: on a store that passes row locks on, a
 * release that another thread waits for ends its hold, and that thread takes the key from the store.
 */
@EnableWeld
class RowHandOverSettingWeldTest {
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
    static void turnTheHandOverOff() {
        System.setProperty(HandOverSettings.ROW_RUN, "0s");
    }

    @AfterAll
    static void clear() {
        System.clearProperty(HandOverSettings.ROW_RUN);
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
}
