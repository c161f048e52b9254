package io.locked.it.process;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.jpa.LockStatements;
import io.locked.jpa.LockTokens;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * kill -9 of a JVM whose threads pass one key's row lock from holder to holder in its transaction (clock tokens
 * on the native path: a run of hand-overs, none of its tokens committed), once the worker has counted 200 of
 * them. Each holder writes a counter fenced
 * by its token (the counter row keeps the highest token that wrote, and refuses lower ones). After the kill the
 * run's transaction is gone with its session: the next holder, in another JVM, gets the row with a token above
 * every token of the run that wrote, its fenced write goes through, and a late write of the run's last writer
 * (a member paused before its write, as it would be after a GC pause) is refused.
 */
class HandOverCrashTest {
    private static final int THREADS = 8;
    /** Counter writes to see before the kill: enough for runs of hand-overs to have formed many times. */
    private static final long WRITES_BEFORE_KILL = 300;
    /** Rows the worker's holders passed on before the kill, counted by the worker (printed at each hundredth). */
    private static final long HAND_OVERS_BEFORE_KILL = 200;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "POSTGRESQL"})
    void theNextJvmsTokenIsAboveEveryTokenOfTheKilledRun(TestDatabase database) throws Exception {
        String key = "it:hand-over-crash:" + UUID.randomUUID();
        try (Connection connection = database.connect()) {
            Counter.create(connection, key);
        }
        List<String> args = List.of("cycles", "database=" + database.name(), "mode=PESSIMISTIC", "key=" + key,
                "threads=" + THREADS, "cycles=0", "fence=TOKEN", "statements=NATIVE", "tokens=CLOCK",
                "history=" + dir.resolve("history.txt"));
        try (Store store = database.open(4, Map.of(), settings -> settings.statements(LockStatements.NATIVE)
                .tokens(LockTokens.CLOCK));
             LockManager locks = LockManagerBuilder.on(store.repository()).build();
             WorkerProcess worker = WorkerProcess.start(dir.resolve("worker.log"), database.workerEnvironment(),
                     args.toArray(String[]::new))) {
            awaitWrites(database, key, worker);
            // runs of hand-overs did form: the kill falls on a transaction that passed the row on many times
            assertNotNull(worker.awaitLine(HandOverCount.LINE + HAND_OVERS_BEFORE_KILL, 120),
                    "the worker ended before its holders passed " + HAND_OVERS_BEFORE_KILL + " rows on: " + worker.logTail());

            worker.kill();

            long runsLastWriter = fenceToken(database, key);
            try (LockHandle next = locks.acquire(LockRequest.of(key).mode(LockMode.PESSIMISTIC)
                    .maxWait(Duration.ofSeconds(60)))) {
                assertTrue(next.token() > runsLastWriter, "the next JVM drew " + next.token()
                        + " after the killed run's writer " + runsLastWriter);
                try (Connection business = database.connect()) {
                    long value = Counter.read(business, key);
                    assertTrue(Counter.writeFenced(business, key, value + 1, next.token()), "the next holder's fenced write");
                    assertFalse(Counter.writeFenced(business, key, value + 2, runsLastWriter),
                            "the killed run's late write went through after the next holder's");
                }
            }
        }
    }

    /** Until the workers' holders wrote the counter often enough, or the worker died (then the test fails). */
    private static void awaitWrites(TestDatabase database, String key, WorkerProcess worker) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        try (Connection connection = database.connect()) {
            while (Counter.read(connection, key) < WRITES_BEFORE_KILL) {
                assertTrue(ProcessHandle.of(worker.pid()).map(ProcessHandle::isAlive).orElse(false), "the worker died before it wrote " + WRITES_BEFORE_KILL + " times: "
                        + worker.logTail());
                assertTrue(System.nanoTime() - deadline < 0, "the worker wrote " + Counter.read(connection, key)
                        + " times in 2 minutes: " + worker.logTail());
                Thread.sleep(50);
            }
        }
    }

    private static long fenceToken(TestDatabase database, String key) throws Exception {
        try (Connection connection = database.connect();
             PreparedStatement read = connection.prepareStatement("SELECT fence_token FROM " + Counter.TABLE + " WHERE id = ?")) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                assertTrue(row.next(), "the counter row of " + key);
                return row.getLong(1);
            }
        }
    }
}
