package io.locked.jpa;

import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.contract.VirtualThreadCrowd;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * 10,000 virtual threads waiting for one key on H2, through {@code acquire} and {@code acquireAsync}: all served
 * one at a time through the JVM's queue of the key (at most two of them at the database), none pinned to its
 * carrier while it waits, a few KB of heap each. Runs on the build's Java 25 lane; Java 17 has no virtual threads.
 */
@EnabledForJreRange(min = JRE.JAVA_21, disabledReason = "virtual threads came with Java 21")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class H2VirtualThreadWaitersTest {
    private Store store;

    @BeforeAll
    void open() {
        store = TestDatabase.H2.open(4);
    }

    @AfterAll
    void close() {
        store.close();
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void tenThousandVirtualThreadsCallingAcquireAreServedOneAtATime(LockMode mode) throws Exception {
        try (LockManager locks = LockManagerBuilder.on(store.repository()).build()) {
            LockRequest request = request(mode);
            VirtualThreadCrowd.assertServedInConstantMemory("H2, acquire, " + mode, VirtualThreadCrowd.blocking(locks, request, 1_000),
                    VirtualThreadCrowd.blocking(locks, request, 10_000));
        }
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void tenThousandAsynchronousAcquisitionsAreServedOneAtATime(LockMode mode) throws Exception {
        try (LockManager locks = LockManagerBuilder.on(store.repository()).build()) {
            LockRequest request = request(mode);
            VirtualThreadCrowd.assertServedInConstantMemory("H2, acquireAsync, " + mode, VirtualThreadCrowd.async(locks, request, 1_000),
                    VirtualThreadCrowd.async(locks, request, 10_000));
        }
    }

    private static LockRequest request(LockMode mode) {
        return LockRequest.of("crowd:" + mode + ":" + UUID.randomUUID()).mode(mode).maxWait(Duration.ofMinutes(10));
    }
}
