package io.locked.it.weld.operator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockInfo;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.event.LockAcquired;
import io.locked.api.event.LockLost;
import io.locked.it.weld.EventLog;
import io.locked.it.weld.LockedDeployment;
import io.locked.it.weld.TestConfig;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What an operator does with the injected {@code LockManager} while a {@code @Locked} job hangs, on
 * MariaDB: sees the job's key held by this JVM, forces its release; the job's call then ends with
 * {@code LockLostException}, and a {@code LockLost} event names the key and the job's token.
 */
class ForcedReleaseWeldTest {

    @AfterEach
    void clearConfig() {
        TestConfig.clear();
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aStuckLockedJobIsSeenAndItsForcedReleaseEndsTheCallWithLockLost(LockMode mode) throws Exception {
        TestConfig.set("locked-test.database", "MARIADB");
        try (WeldContainer container = LockedDeployment.with(StuckJob.class).initialize()) {
            StuckJob job = container.select(StuckJob.class).get();
            LockManager operator = container.select(LockManager.class).get();
            String name = "nightly-" + mode + "-" + System.nanoTime();
            String key = "job:" + name;
            job.reset();
            CompletableFuture<Void> call = CompletableFuture.runAsync(() -> {
                try {
                    if (mode == LockMode.OPTIMISTIC) {
                        job.runOptimistic(name);
                    } else {
                        job.runPessimistic(name);
                    }
                } catch (InterruptedException interrupted) {
                    throw new IllegalStateException(interrupted);
                }
            });
            job.awaitEntered();

            LockInfo held = operator.inspect(key);
            assertTrue(held.held(), "the job's key is held: " + held);
            assertEquals(Optional.of(mode), held.mode());
            assertTrue(held.heldByThisJvm(), "by this JVM: " + held);
            long token = container.select(EventLog.class).get().of(LockAcquired.class).get(0).token();
            assertEquals(OptionalLong.of(token), held.token());

            Optional<LockInfo> ended = operator.forceRelease(key);
            assertEquals(OptionalLong.of(token), ended.orElseThrow().token());
            assertFalse(operator.inspect(key).held(), "free after the forced release");

            job.letGo();
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> call.get(60, TimeUnit.SECONDS));
            LockLostException lost = assertInstanceOf(LockLostException.class, failed.getCause());
            assertEquals(key, lost.key());
            List<LockLost> events = container.select(EventLog.class).get().of(LockLost.class);
            assertEquals(1, events.size(), "one LockLost event");
            assertEquals(token, events.get(0).token());
        }
    }
}
