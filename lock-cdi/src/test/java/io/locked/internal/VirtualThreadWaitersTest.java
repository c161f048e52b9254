package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.contract.VirtualThreadCrowd;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * 10,000 virtual threads waiting for one key, through {@code acquire} and through {@code acquireAsync} (whose
 * waits are virtual threads of the manager's own on Java 21+): all are served, one at a time, no wait pins its
 * carrier, and the heap they retain grows by a small constant per waiter, the same for 1,000 and 10,000. Runs on
 * the build's Java 25 lane (.ci/run); Java 17 has no virtual threads.
 */
@EnabledForJreRange(min = JRE.JAVA_21, disabledReason = "virtual threads came with Java 21")
class VirtualThreadWaitersTest {
    private final InMemoryLockRepository store = new InMemoryLockRepository();
    private final LockManager locks = LockManagerBuilder.on(store).build();

    @AfterEach
    void close() {
        locks.close();
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void tenThousandVirtualThreadsCallingAcquireAreServedOneAtATime(LockMode mode) throws Exception {
        LockRequest request = LockRequest.of("crowd:" + mode).mode(mode).maxWait(Duration.ofMinutes(10));
        VirtualThreadCrowd.Outcome small = VirtualThreadCrowd.blocking(locks, request, 1_000);
        VirtualThreadCrowd.Outcome large = VirtualThreadCrowd.blocking(locks, request, 10_000);
        VirtualThreadCrowd.assertServedInConstantMemory("in memory, acquire, " + mode, small, large);
        assertTrue(locks.tryAcquire(request).map(handle -> {
            handle.close();
            return true;
        }).orElse(false), "the key is free after the crowd");
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void tenThousandAsynchronousAcquisitionsAreServedOneAtATime(LockMode mode) throws Exception {
        LockRequest request = LockRequest.of("async-crowd:" + mode).mode(mode).maxWait(Duration.ofMinutes(10));
        VirtualThreadCrowd.Outcome small = VirtualThreadCrowd.async(locks, request, 1_000);
        VirtualThreadCrowd.Outcome large = VirtualThreadCrowd.async(locks, request, 10_000);
        VirtualThreadCrowd.assertServedInConstantMemory("in memory, acquireAsync, " + mode, small, large);
    }
}
