package io.locked.internal.operations;

import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockStoreUnavailableException;
import io.locked.contract.DelegatingRepository;
import io.locked.internal.DefaultLockManager;
import io.locked.internal.operations.StoreReadiness;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The readiness check's verdicts, and its bound when the store hangs, on a scripted store. */
class StoreReadinessTest {
    private static final Duration TIMEOUT = Duration.ofMillis(200);

    /** A store whose readiness read can be made to fail or to hang, counting the reads. */
    private static final class ScriptedStore extends DelegatingRepository {
        final AtomicInteger reads = new AtomicInteger();
        final AtomicBoolean failing = new AtomicBoolean();
        volatile CountDownLatch hang = new CountDownLatch(0);

        ScriptedStore() {
            super(new InMemoryLockRepository());
        }

        @Override
        public void checkReachable(Duration timeout) {
            reads.incrementAndGet();
            try {
                hang.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (failing.get()) {
                throw new LockStoreUnavailableException("(readiness)", "reading the lock table failed", null);
            }
        }
    }

    @Test
    void upWhenTheStoreAnswersAndTheWatchdogRuns() {
        ScriptedStore store = new ScriptedStore();
        try (StoreReadiness readiness = new StoreReadiness(store, () -> true, TIMEOUT)) {
            StoreReadiness.Report report = readiness.check();
            assertTrue(report.up(), report.toString());
            assertEquals("answering", report.data().get("store"));
            assertEquals("running", report.data().get("watchdog"));
        }
    }

    @Test
    void downNamingTheFailureWhenTheStoreFails() {
        ScriptedStore store = new ScriptedStore();
        store.failing.set(true);
        try (StoreReadiness readiness = new StoreReadiness(store, () -> true, TIMEOUT)) {
            StoreReadiness.Report report = readiness.check();
            assertFalse(report.up());
            assertTrue(report.data().get("store").contains("reading the lock table failed"), report.toString());
        }
    }

    // an outage that refuses connections is not a hang, nor a pool too small: the check says refused
    @Test
    void refusedWhenTheDatabaseRefusesConnections() {
        DelegatingRepository refusing = new DelegatingRepository(new InMemoryLockRepository()) {
            @Override
            public void checkReachable(Duration timeout) {
                throw new LockStoreUnavailableException("(readiness)", "reading the lock table failed",
                        new java.sql.SQLException("Socket fail to connect", "08000", new java.net.ConnectException("Connection refused")));
            }
        };
        try (StoreReadiness readiness = new StoreReadiness(refusing, () -> true, TIMEOUT)) {
            StoreReadiness.Report report = readiness.check();
            assertFalse(report.up());
            assertEquals("refused: the database refuses connections (Connection refused)", report.data().get("store"));
        }
    }

    // a store that takes longer than the timeout to fail (created again on each read while the database
    // refuses): the next check reports that failure, not "not answering" again
    @Test
    void aReadThatFailedAfterItsCheckGaveUpIsReportedByTheNextCheck() throws Exception {
        CountDownLatch slow = new CountDownLatch(1);
        CountDownLatch failed = new CountDownLatch(1);
        DelegatingRepository slowlyRefusing = new DelegatingRepository(new InMemoryLockRepository()) {
            @Override
            public void checkReachable(Duration timeout) {
                try {
                    slow.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                failed.countDown();
                throw new LockStoreUnavailableException("(start-up)", "reading the database's name failed",
                        new java.sql.SQLException("Socket fail to connect", "08000", new java.net.ConnectException("Connection refused")));
            }
        };
        try (StoreReadiness readiness = new StoreReadiness(slowlyRefusing, () -> true, TIMEOUT)) {
            assertEquals("not answering within 200 ms", readiness.check().data().get("store"));
            slow.countDown();
            assertTrue(failed.await(30, TimeUnit.SECONDS));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            StoreReadiness.Report next = readiness.check();
            while (next.data().get("store").startsWith("not answering") && System.nanoTime() < deadline) {
                next = readiness.check(); // the failed read's thread is still returning
            }
            assertEquals("refused: the database refuses connections (Connection refused)", next.data().get("store"));
        }
    }

    @Test
    void downWithinItsTimeoutWhenTheStoreHangsAndUpAgainOnceItAnswers() throws Exception {
        ScriptedStore store = new ScriptedStore();
        store.hang = new CountDownLatch(1);
        try (StoreReadiness readiness = new StoreReadiness(store, () -> true, TIMEOUT)) {
            // the verdict comes while the read still hangs: bounded by the check, not by the store
            StoreReadiness.Report hung = CompletableFuture.supplyAsync(readiness::check).get(30, TimeUnit.SECONDS);
            assertFalse(hung.up());
            assertEquals("not answering within 200 ms", hung.data().get("store"));
            assertEquals(1, store.reads.get());

            StoreReadiness.Report stillHung = readiness.check();
            assertFalse(stillHung.up());
            assertTrue(stillHung.data().get("store").startsWith("not answering: the check started"), stillHung.toString());
            assertEquals(1, store.reads.get(), "no second read piled up behind the hung one");

            store.hang.countDown();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            StoreReadiness.Report again = readiness.check();
            while (!again.up() && System.nanoTime() < deadline) {
                again = readiness.check();
            }
            assertTrue(again.up(), again.toString());
        }
    }

    @Test
    void downWhenTheWatchdogHasStopped() throws Exception {
        ScriptedStore store = new ScriptedStore();
        LockManager manager = LockManagerBuilder.on(store).build();
        DefaultLockManager watched = (DefaultLockManager) manager;
        try (StoreReadiness readiness = new StoreReadiness(store, watched::watchdogAlive, TIMEOUT)) {
            assertTrue(readiness.check().up());
            manager.close();
            StoreReadiness.Report report = readiness.check();
            assertFalse(report.up());
            assertEquals("stopped", report.data().get("watchdog"));
        }
    }
}
