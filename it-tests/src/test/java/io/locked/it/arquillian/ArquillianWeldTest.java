package io.locked.it.arquillian;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockRequest;
import io.locked.api.event.LockAcquired;
import io.locked.contract.HistoryChecker;
import io.locked.internal.cdi.LockEvents;
import io.locked.internal.cdi.LockManagerProducer;
import io.locked.internal.cdi.LockedExtension;
import io.locked.internal.cdi.LockedInterceptor;
import io.locked.internal.cdi.LockedMethods;
import io.locked.it.weld.EventLog;
import io.locked.it.weld.TestLockStore;
import io.locked.it.weld.exclusion.StockRoom;
import io.locked.it.weld.keys.KeyedJobs;
import io.locked.it.weld.skip.Cleaner;
import io.locked.jpa.cdi.JpaLockStoreProducer;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.EmptyAsset;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Weld scenario beans again, deployed as an archive through Arquillian's embedded Weld container. */
@ExtendWith(ArquillianExtension.class)
class ArquillianWeldTest {

    @Deployment
    static JavaArchive deployment() {
        return ShrinkWrap.create(JavaArchive.class, "locked-arquillian.jar")
                .addClasses(LockedInterceptor.class, LockedMethods.class, LockEvents.class, LockManagerProducer.class,
                        JpaLockStoreProducer.class, TestLockStore.class, EventLog.class)
                .addClasses(StockRoom.class, KeyedJobs.class, KeyedJobs.Order.class, KeyedJobs.Customer.class, Cleaner.class)
                .addAsServiceProvider(Extension.class, LockedExtension.class)
                .addAsManifestResource(EmptyAsset.INSTANCE, "beans.xml");
    }

    @Inject
    StockRoom room;
    @Inject
    KeyedJobs jobs;
    @Inject
    Cleaner cleaner;
    @Inject
    LockManager locks;
    @Inject
    EventLog log;

    @Test
    void callsOnOneKeyNeverOverlap() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(8);
        List<Future<?>> calls = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            calls.add(threads.submit(() -> room.take("gadget")));
        }
        for (Future<?> call : calls) {
            call.get(60, TimeUnit.SECONDS);
        }
        threads.shutdown();
        assertEquals(List.of(), HistoryChecker.violations(room.history().sections()));
        assertEquals(120, room.taken("gadget"));
    }

    @Test
    void keysAreRenderedFromTheTemplate() {
        jobs.ship(new KeyedJobs.Order(7, new KeyedJobs.Customer("grace")));
        assertTrue(log.of(LockAcquired.class).stream().anyMatch(event -> event.key().equals("order:7:grace")));
    }

    @Test
    void busyLockSkipsTheCall() throws Exception {
        LockHandle held = CompletableFuture.supplyAsync(() -> locks.acquire(LockRequest.of("clean"))).get();
        try {
            assertEquals(Optional.empty(), cleaner.cleanAndReport());
            assertEquals(0, cleaner.runs());
        } finally {
            CompletableFuture.runAsync(held::close).get();
        }
    }
}
