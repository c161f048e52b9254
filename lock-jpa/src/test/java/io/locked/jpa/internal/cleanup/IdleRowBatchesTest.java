package io.locked.jpa.internal.cleanup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.jpa.LockStatements;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The cleanup of idle rows in batches ({@link IdleRowBatches}), on both paths, on more idle rows
 * than three batches hold: every idle row goes, rows held in either mode survive wherever they fall
 * among the batches (at a batch's first and last key too), keys whose rows went get higher tokens
 * next time, and no batch looks at more than {@link IdleRowBatches#SIZE} keys (read from the
 * batches' log records). Derby is left out: its reads wait for row locks, so a cleanup's scan waits
 * behind a held row (see DerbyLockContractTest).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IdleRowBatchesTest {
    private static final int ROWS = 3 * IdleRowBatches.SIZE + 13;
    // indexes in key order: the first and last key of the first batch, and keys in the later ones
    private static final Set<Integer> HELD_PESSIMISTIC = Set.of(0, 777, 1203);
    private static final Set<Integer> HELD_OPTIMISTIC = Set.of(IdleRowBatches.SIZE - 1, 1000, ROWS - 1);
    private static final Set<Integer> USED_BEFORE = Set.of(3, IdleRowBatches.SIZE, 2 * IdleRowBatches.SIZE + 1);
    private final Map<String, Store> stores = new HashMap<>();

    static Stream<Arguments> databasesAndPaths() {
        return Stream.concat(Stream.of(TestDatabase.H2, TestDatabase.MARIADB, TestDatabase.POSTGRESQL, TestDatabase.MYSQL8)
                        .flatMap(database -> Stream.of(LockStatements.NATIVE, LockStatements.JPA)
                                .map(path -> Arguments.of(database, path))),
                Stream.of(Arguments.of(TestDatabase.HSQLDB, LockStatements.JPA)));
    }

    @AfterAll
    void closeStores() {
        stores.values().forEach(Store::close);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databasesAndPaths")
    void deletesEveryIdleRowBatchByBatchAndNoHeldOne(TestDatabase database, LockStatements path) throws Exception {
        Store store = stores.computeIfAbsent(database + "/" + path,
                d -> database.open(8, Map.of(), settings -> settings.statements(path)));
        String prefix = "batches:" + UUID.randomUUID() + ":";
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            keys.add(prefix + String.format("%05d", i));
        }
        insertFreeRows(store, keys);
        Map<String, Long> tokensBefore = new HashMap<>();
        Set<String> heldKeys = new TreeSet<>();
        int idle = ROWS - HELD_PESSIMISTIC.size() - HELD_OPTIMISTIC.size();
        List<LogRecord> batches = new CopyOnWriteArrayList<>();
        // closing the manager releases what a failed assertion left held
        try (LockManager locks = LockManagerBuilder.on(store.repository()).build()) {
            List<LockHandle> held = new ArrayList<>();
            for (int index : USED_BEFORE) {
                try (LockHandle used = locks.acquire(LockRequest.of(keys.get(index)).mode(LockMode.OPTIMISTIC))) {
                    tokensBefore.put(keys.get(index), used.token());
                }
            }
            for (int index : HELD_PESSIMISTIC) {
                held.add(locks.acquire(LockRequest.of(keys.get(index)).mode(LockMode.PESSIMISTIC)));
                heldKeys.add(keys.get(index));
            }
            for (int index : HELD_OPTIMISTIC) {
                held.add(locks.acquire(LockRequest.of(keys.get(index)).mode(LockMode.OPTIMISTIC)
                        .lease(Duration.ofMinutes(5))));
                heldKeys.add(keys.get(index));
            }

            // idle for a microsecond is enough: the held rows must survive on their own merits
            int deleted = recordingBatches(batches, () -> store.repository().deleteIdleRows(Duration.ofNanos(1000)));

            assertTrue(deleted >= idle, "deleted " + deleted + " rows, fewer than the " + idle + " idle ones");
            assertEquals(heldKeys, rowsLeft(store, prefix), "the rows left are not the held ones");
            for (LockHandle handle : held) {
                assertTrue(handle.isValid(), "a held lock was lost: " + handle);
            }
            held.forEach(LockHandle::close);
            for (Map.Entry<String, Long> used : tokensBefore.entrySet()) {
                try (LockHandle again = locks.acquire(LockRequest.of(used.getKey()))) {
                    assertTrue(again.token() > used.getValue(), "the token of " + used.getKey() + " went from "
                            + used.getValue() + " to " + again.token() + " after its row was deleted");
                }
            }
        }
        assertBatchesBounded(batches, idle);
    }

    /** Each batch looked at no more than a batch's keys, and it took as many batches as that bound requires. */
    private static void assertBatchesBounded(List<LogRecord> batches, int idle) {
        int keysLookedAt = 0;
        int largest = 0;
        for (LogRecord batch : batches) {
            int candidates = (Integer) batch.getParameters()[0];
            keysLookedAt += candidates;
            largest = Math.max(largest, candidates);
        }
        assertEquals(IdleRowBatches.SIZE, largest, "no batch was full, or one was larger than a batch: " + largest);
        assertTrue(keysLookedAt >= idle, "the batches looked at " + keysLookedAt + " keys, fewer than the idle ones");
        int atLeast = (idle + IdleRowBatches.SIZE - 1) / IdleRowBatches.SIZE;
        assertTrue(batches.size() >= atLeast, batches.size() + " batches for " + idle + " idle rows");
        int last = (Integer) batches.get(batches.size() - 1).getParameters()[0];
        assertTrue(last < IdleRowBatches.SIZE, "the run ended after a full batch");
    }

    private interface Cleanup {
        int run();
    }

    private static int recordingBatches(List<LogRecord> batches, Cleanup cleanup) {
        Logger logger = Logger.getLogger(IdleRowBatches.LOGGER);
        Level level = logger.getLevel();
        Handler recorder = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (IdleRowBatches.BATCH.equals(record.getMessage())) {
                    batches.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        recorder.setLevel(Level.ALL);
        logger.setLevel(Level.FINER);
        logger.addHandler(recorder);
        try {
            return cleanup.run();
        } finally {
            logger.removeHandler(recorder);
            logger.setLevel(level);
        }
    }

    /** Free rows, never acquired, as many a table of keys once created holds. */
    private static void insertFreeRows(Store store, List<String> keys) throws SQLException {
        try (Connection connection = store.pool().dataSource().getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO locked_lock (lock_key, version, token) VALUES (?, 0, 0)")) {
                for (String key : keys) {
                    insert.setString(1, key);
                    insert.addBatch();
                }
                insert.executeBatch();
            }
            connection.commit();
            connection.setAutoCommit(true);
        }
    }

    private static Set<String> rowsLeft(Store store, String prefix) throws SQLException {
        Set<String> left = new TreeSet<>();
        try (Connection connection = store.pool().dataSource().getConnection();
             PreparedStatement read = connection.prepareStatement("SELECT lock_key FROM locked_lock WHERE lock_key LIKE ?")) {
            read.setString(1, prefix + "%");
            try (ResultSet rows = read.executeQuery()) {
                while (rows.next()) {
                    left.add(rows.getString(1));
                }
            }
        }
        assertFalse(left.isEmpty(), "the held rows were deleted too");
        return left;
    }
}
