package io.locked.internal.base;

import io.locked.internal.base.LockLog;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.LockStoreUnavailableException;
import io.locked.contract.Await;
import io.locked.contract.DelegatingRepository;
import io.locked.spi.Lease;
import io.locked.testing.InMemoryLockRepository;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What the lock logs on {@code io.locked}: FINE per call, WARNING for a lost lock or a failed store, never INFO per call. */
class LockLogTest {
    private final List<LogRecord> records = Collections.synchronizedList(new ArrayList<>());
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private final Logger logger = Logger.getLogger("io.locked");
    private Level levelBefore;

    @BeforeEach
    void capture() {
        levelBefore = logger.getLevel();
        logger.setLevel(Level.ALL);
        capture.setLevel(Level.ALL);
        logger.addHandler(capture);
    }

    @AfterEach
    void release() {
        logger.removeHandler(capture);
        logger.setLevel(levelBefore);
    }

    @Test
    void acquisitionsAndReleasesAreFineAndNothingPerCallIsInfo() {
        try (LockManager locks = LockManagerBuilder.on(new InMemoryLockRepository()).build()) {
            for (LockMode mode : LockMode.values()) {
                try (LockHandle lock = locks.acquire(LockRequest.of("log:calls:" + mode).mode(mode))) {
                    assertTrue(lock.isValid());
                }
            }
        }
        List<String> fine = messages(Level.FINE);
        for (LockMode mode : LockMode.values()) {
            assertTrue(fine.stream().anyMatch(m -> m.startsWith("Acquired 'log:calls:" + mode + "' " + mode)
                    && m.contains(Thread.currentThread().getName())), fine.toString());
            assertTrue(fine.stream().anyMatch(m -> m.startsWith("Released 'log:calls:" + mode + "' " + mode)), fine.toString());
        }
        assertEquals(List.of(), atLeast(Level.INFO), "logged at INFO or above for plain calls");
    }

    @Test
    void aLostLeaseIsOneWarningNamingTheKeyAndTheHolder() throws Exception {
        DelegatingRepository takenOver = new DelegatingRepository(new InMemoryLockRepository()) {
            @Override
            public Lease renewLease(Lease lease, Duration duration) {
                return null; // another holder has the row now
            }
        };
        try (LockManager locks = LockManagerBuilder.on(takenOver).build()) {
            LockHandle lock = locks.acquire(LockRequest.of("log:lost").mode(LockMode.OPTIMISTIC)
                    .lease(Duration.ofMillis(300)));
            Await.invalid(lock, Duration.ofSeconds(10), "the failed renewal");
            assertThrows(LockLostException.class, lock::close);
        }
        List<String> warnings = messages(Level.WARNING);
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).startsWith("Lock 'log:lost' OPTIMISTIC") && warnings.get(0).contains("was lost")
                && warnings.get(0).contains(Thread.currentThread().getName()), warnings.get(0));
    }

    @Test
    void aStoreFailureIsAWarningNamingTheKeyAndTheHolder() {
        DelegatingRepository down = new DelegatingRepository(new InMemoryLockRepository()) {
            @Override
            public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
                throw new LockStoreUnavailableException(key, "taking the lease failed", new SQLException("connection refused"));
            }
        };
        try (LockManager locks = LockManagerBuilder.on(down).build()) {
            assertThrows(LockStoreUnavailableException.class,
                    () -> locks.acquire(LockRequest.of("log:down").mode(LockMode.OPTIMISTIC)));
        }
        List<String> warnings = messages(Level.WARNING);
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).startsWith("Lock store failed acquiring 'log:down'")
                && warnings.get(0).contains(Thread.currentThread().getName()), warnings.get(0));
    }

    // the first line is short and ends with the innermost cause; each cause on a line of its own, said once
    @Test
    void aStoreFailureSaysItsInnermostCauseFirstAndEachCauseOnce() {
        SQLException refused = new SQLException("Socket fail to connect to 127.0.0.1:3306. Connection refused",
                "08000", new java.net.ConnectException("Connection refused"));
        String warning = LockLog.storeFailure("order:42", "host/1/main", "acquiring",
                new LockStoreUnavailableException("order:42", "taking the lease failed", refused));
        List<String> lines = warning.lines().toList();
        assertEquals("Lock store failed acquiring 'order:42' for host/1/main: java.net.ConnectException: Connection refused",
                lines.get(0));
        assertEquals(List.of(
                "  io.locked.api.LockStoreUnavailableException: Lock store unavailable for 'order:42': taking the lease failed",
                "  caused by java.sql.SQLException: Socket fail to connect to 127.0.0.1:3306. Connection refused",
                "  caused by java.net.ConnectException: Connection refused"), lines.subList(1, lines.size()), warning);
    }

    private List<String> messages(Level level) {
        synchronized (records) {
            return records.stream().filter(r -> r.getLevel().equals(level)).map(LogRecord::getMessage).toList();
        }
    }

    private List<String> atLeast(Level level) {
        synchronized (records) {
            return records.stream().filter(r -> r.getLevel().intValue() >= level.intValue()).map(LogRecord::getMessage)
                    .toList();
        }
    }
}
