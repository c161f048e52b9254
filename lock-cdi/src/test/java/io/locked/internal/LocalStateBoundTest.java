package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.LockType;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One JVM that locks many distinct keys once each keeps no state for the keys it no longer holds or
 * waits for, in every form: the per-key queues, read/write states and held acquisitions of the manager
 * go with the last user of a key, and none goes while a key is held. A cache of per-key state that
 * outlived its keys would grow with every key ever locked; one that dropped a held key's state would
 * let a second local thread in (the peers' registries had both kinds of bug).
 *
 * <p>{@code -Dlocked.local-state.keys=10000000} runs it on ten million keys per form, and from a million keys on it
 * also weighs the heap: the store forgets each free row (as if idle rows were cleaned up at once), so what the
 * heap keeps after a full collection is the core's, and it must not grow between a tenth of the keys and all of
 * them. The minimum hold keeps each key's row for its minute: its heap is the store's, and only the count is
 * judged there.
 */
class LocalStateBoundTest {
    private static final int KEYS = Integer.getInteger("locked.local-state.keys", 20_000);
    /** Where the heap's readings mean something: a leak of 8 bytes per key shows as 72 MB over 9 million keys. */
    private static final int WEIGHED_FROM = 1_000_000;
    /** What the heap may grow by between the readings: a collector's slack, far below any per-key leak. */
    private static final long HEAP_SLACK = 64L << 20;

    enum Form {
        EXCLUSIVE_PESSIMISTIC(key -> LockRequest.of(key)),
        EXCLUSIVE_OPTIMISTIC(key -> LockRequest.of(key).mode(LockMode.OPTIMISTIC)),
        READ(key -> LockRequest.of(key).mode(LockMode.OPTIMISTIC).type(LockType.READ)),
        WRITE(key -> LockRequest.of(key).mode(LockMode.OPTIMISTIC).type(LockType.WRITE)),
        PERMITS_PESSIMISTIC(key -> LockRequest.of(key).permits(3)),
        PERMITS_OPTIMISTIC(key -> LockRequest.of(key).mode(LockMode.OPTIMISTIC).permits(3)),
        MINIMUM_HOLD(key -> LockRequest.of(key).mode(LockMode.OPTIMISTIC).holdAtLeast(Duration.ofMinutes(1)));

        final Function<String, LockRequest> request;

        Form(Function<String, LockRequest> request) {
            this.request = request;
        }
    }

    @ParameterizedTest
    @EnumSource(Form.class)
    void theStateOfKeysNoLongerHeldIsGoneAndAHeldKeysStaysUntilItsRelease(Form form) {
        InMemoryLockRepository store = new InMemoryLockRepository().forgettingFreeRows();
        LockManager locks = LockManagerBuilder.on(store).build();
        DefaultLockManager manager = (DefaultLockManager) locks;
        boolean weighed = KEYS >= WEIGHED_FROM && form != Form.MINIMUM_HOLD;
        long heapAtATenth = 0;
        try {
            for (int i = 0; i < KEYS; i++) {
                if (weighed && i == KEYS / 10) {
                    assertEquals(0, stateLeftAfter(manager, TimeUnit.SECONDS.toNanos(30)), "state left at a tenth");
                    heapAtATenth = heapAfterCollection();
                }
                try (LockHandle held = locks.acquire(form.request.apply(form + ":" + i))) {
                    assertTrue(manager.localKeyState() > 0, "the state of a held key is gone, key " + i);
                }
            }
            // a reader slot stays kept a moment for the JVM's next reader, then its timer lets it go
            assertEquals(0, stateLeftAfter(manager, TimeUnit.SECONDS.toNanos(30)),
                    "state left behind after " + KEYS + " keys locked once each");
            if (weighed) {
                long growth = heapAfterCollection() - heapAtATenth;
                System.out.printf("%s: heap grew %d bytes over %d keys (%.3f bytes a key)%n", form, growth,
                        KEYS - KEYS / 10, (double) growth / (KEYS - KEYS / 10));
                assertTrue(growth < HEAP_SLACK, form + ": the heap kept " + growth + " bytes more after "
                        + (KEYS - KEYS / 10) + " more keys were locked and released");
            }
        } finally {
            locks.close();
        }
    }

    private static long heapAfterCollection() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Polls the count until it is zero or the bound has passed: a condition, not a sleep. */
    private static int stateLeftAfter(DefaultLockManager manager, long boundNanos) {
        long deadline = System.nanoTime() + boundNanos;
        int left = manager.localKeyState();
        while (left > 0 && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
            left = manager.localKeyState();
        }
        return left;
    }
}
