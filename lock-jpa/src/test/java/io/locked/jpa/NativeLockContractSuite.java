package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.jpa.testing.Store;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The lock contract on the native path, plus what only that path does: it borrows its connections
 * within the caller's wait or the connection wait and answers "no connection" when none came,
 * warning naming the drained pool. The JPA path takes its connections through the provider, with
 * the pool's own timeout.
 */
abstract class NativeLockContractSuite extends JpaLockContractSuite {
    @Override
    LockStatements statements() {
        return LockStatements.NATIVE;
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aDrainedPoolGivesNotAcquiredWithinTheWaitAndAWarningNamingItsSize(LockMode mode) throws Exception {
        // the application's own work has every connection of a small pool
        try (Store small = open(2);
             LockManager locks = LockManagerBuilder.on(small.repository()).build();
             Connection first = small.pool().dataSource().getConnection();
             Connection second = small.pool().dataSource().getConnection()) {
            assertNotAcquiredWithAWarning(locks, "jpa:drained:" + mode + ":" + UUID.randomUUID(), mode);
        }
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aPoolHeldByAPessimisticHolderAndItsOwnWorkGivesNotAcquired(LockMode mode) throws Exception {
        try (Store small = open(2);
             LockManager locks = LockManagerBuilder.on(small.repository()).build();
             LockHandle holder = locks.acquire(LockRequest.of("jpa:holder:" + UUID.randomUUID()));
             Connection holdersWork = small.pool().dataSource().getConnection()) {
            assertNotAcquiredWithAWarning(locks, "jpa:other-key:" + mode + ":" + UUID.randomUUID(), mode);
            assertTrue(holder.isValid());
        }
    }

    private static void assertNotAcquiredWithAWarning(LockManager locks, String key, LockMode mode) {
        List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(record.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = Logger.getLogger("io.locked.jpa");
        logger.addHandler(capture);
        try {
            LockRequest request = LockRequest.of(key).mode(mode);
            // the pool's own timeout is 10 s; the waits below are all shorter
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                // no connection: not "held", and said at once, not after the caller's wait of retries
                for (Executable attempt : List.<Executable>of(() -> locks.tryAcquire(request),
                        () -> locks.acquire(request.maxWait(Duration.ZERO)),
                        () -> locks.acquire(request.maxWait(Duration.ofMillis(500))))) {
                    assertEquals(LockNotAcquiredException.Reason.NO_CONNECTION,
                            assertThrows(LockNotAcquiredException.class, attempt).reason());
                }
            });
            assertTrue(warnings.stream().anyMatch(message -> message.contains("'" + key + "'")
                    && message.contains("2 connections")), "no warning naming the pool's size: " + warnings);
        } finally {
            logger.removeHandler(capture);
        }
    }
}
