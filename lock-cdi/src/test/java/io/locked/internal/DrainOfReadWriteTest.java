package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockManagerClosedException;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.LockType;
import io.locked.contract.DelegatingRepository;
import io.locked.spi.LockRowState;
import io.locked.spi.LockRows;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A read or write whose look at the other side's rows is still under way when its manager begins to close is not
 * granted: the drain lets holders finish and grants nothing new, and the row the request took is given back. The
 * deterministic simulation found a pessimistic read granted so (waits, seed 263): its slot was taken before the close
 * began, its look at the writer row ended after.
 */
class DrainOfReadWriteTest {
    private static final String KEY = "report";
    private final InMemoryLockRepository memory = new InMemoryLockRepository();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final CountDownLatch looking = new CountDownLatch(1);
    private final CountDownLatch goOn = new CountDownLatch(1);

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    @ParameterizedTest
    @EnumSource(value = LockType.class, names = {"READ", "WRITE"})
    void aRequestWhoseLookOutlastsTheCloseIsNotGrantedAndLeavesNoRowHeld(LockType type) throws Exception {
        DelegatingRepository store = new DelegatingRepository(memory) {
            // a reader looks at the writer row, a writer at the reader slots: held there until the close began
            @Override
            public Optional<LockRowState> inspect(String key) {
                if (type == LockType.READ && key.equals(LockRows.writer(KEY))) {
                    holdTheLook();
                }
                return super.inspect(key);
            }

            @Override
            public List<LockRowState> inspectAll(List<String> keys) {
                if (type == LockType.WRITE && keys.contains(LockRows.readerSlot(KEY, 1))) {
                    holdTheLook();
                }
                return super.inspectAll(keys);
            }
        };
        DefaultLockManager locks = (DefaultLockManager) LockManagerBuilder.on(store).drainOnClose(Duration.ofSeconds(30)).build();
        Future<LockHandle> asking = threads.submit(() -> locks.acquire(LockRequest.of(KEY).mode(LockMode.OPTIMISTIC).type(type)));
        assertTrue(looking.await(10, TimeUnit.SECONDS), "the request never looked at the other side's rows");
        Future<?> closing = threads.submit(locks::close);
        while (locks.watchdogAlive()) {
            Thread.onSpinWait(); // until the close has begun: from then on the manager grants nothing
        }
        goOn.countDown();

        ExecutionException refused = assertThrows(ExecutionException.class, () -> asking.get(10, TimeUnit.SECONDS),
                "a " + type + " was granted after its manager's close began");
        assertInstanceOf(LockManagerClosedException.class, refused.getCause());
        closing.get(10, TimeUnit.SECONDS); // nothing is held: the drain ends at once
        assertEquals(0, memory.rowsHeld(), "the row the refused request took is still held");
    }

    private void holdTheLook() {
        looking.countDown();
        try {
            assertTrue(goOn.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
