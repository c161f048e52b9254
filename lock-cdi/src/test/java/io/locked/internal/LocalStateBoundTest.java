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
 * <p>{@code -Dlocked.local-state.keys=10000000} runs it on ten million keys per form (the in-memory store
 * keeps a row per key, as a table would: give the JVM the heap for them).
 */
class LocalStateBoundTest {
    private static final int KEYS = Integer.getInteger("locked.local-state.keys", 20_000);

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
        InMemoryLockRepository store = new InMemoryLockRepository();
        LockManager locks = LockManagerBuilder.on(store).build();
        DefaultLockManager manager = (DefaultLockManager) locks;
        try {
            for (int i = 0; i < KEYS; i++) {
                try (LockHandle held = locks.acquire(form.request.apply(form + ":" + i))) {
                    assertTrue(manager.localKeyState() > 0, "the state of a held key is gone, key " + i);
                }
            }
            // a reader slot stays kept a moment for the JVM's next reader, then its timer lets it go
            assertEquals(0, stateLeftAfter(manager, TimeUnit.SECONDS.toNanos(30)),
                    "state left behind after " + KEYS + " keys locked once each");
        } finally {
            locks.close();
        }
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
