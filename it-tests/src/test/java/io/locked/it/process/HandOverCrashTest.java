package io.locked.it.process;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockInfo;
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
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * kill -9 of a JVM in the middle of hand-overs (the second case, leases a manager keeps, is described at its
 * method). First, a JVM whose threads pass one key's row lock from holder to holder in its transaction (clock
 * tokens on the native path: a run of hand-overs, none of its tokens committed), once the worker has counted
 * 200 of them. Each holder writes a counter fenced by its token (the counter row keeps the highest token that
 * wrote, and refuses lower ones). After the kill the run's transaction is gone with its session: the next
 * holder, in another JVM, gets the row with a token above every token of the run that wrote, its fenced write
 * goes through, and a late write of the run's last writer (a member paused before its write, as it would be
 * after a GC pause) is refused.
 */
class HandOverCrashTest {
    private static final int THREADS = 8;
    /** Counter writes to see before the kill: enough for runs of hand-overs to have formed many times. */
    private static final long WRITES_BEFORE_KILL = 300;
    /** Rows the worker's holders passed on before the kill, counted by the worker (printed at each hundredth). */
    private static final long HAND_OVERS_BEFORE_KILL = 200;
    /** Threads of the keeping worker: some take turns through hand-overs, and a lone one's release is kept. */
    private static final int LEASE_THREADS = 2;
    /** The keeping worker's leases: what the next JVM waits for after the kill, at most. */
    private static final Duration LEASE = Duration.ofSeconds(3);

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

    /**
     * kill -9 of a JVM whose manager keeps released leases ({@code keepLeasesFor}), once it passed 200 leases
     * on: kept, to a waiting thread, or to the next take. Each pass committed a new token; the JVM dies with a
     * lease live in the row, or kept, or released. The next JVM takes the key only once that lease ran out
     * (both instants read from the table, on the database's clock), with a token above it and above every
     * token that wrote; a late write with the dead lease's token, or the last writer's, is refused.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "POSTGRESQL", "MYSQL8"})
    void aKilledJvmsKeptLeaseHoldsTheKeyUntilItRunsOut(TestDatabase database) throws Exception {
        String key = "it:lease-keep-crash:" + UUID.randomUUID();
        try (Connection connection = database.connect()) {
            Counter.create(connection, key);
        }
        List<String> args = List.of("cycles", "database=" + database.name(), "mode=OPTIMISTIC", "key=" + key,
                "threads=" + LEASE_THREADS, "cycles=0", "fence=TOKEN", "lease-millis=" + LEASE.toMillis(),
                "lease-keep-millis=" + LockManagerBuilder.MAX_LEASE_KEEP.toMillis(), "history=" + dir.resolve("history.txt"));
        try (Store store = database.open(4, Map.of(), settings -> settings);
             LockManager locks = LockManagerBuilder.on(store.repository()).build();
             WorkerProcess worker = WorkerProcess.start(dir.resolve("worker.log"), database.workerEnvironment(),
                     args.toArray(String[]::new))) {
            awaitWrites(database, key, worker);
            assertNotNull(worker.awaitLine(HandOverCount.LINE + HAND_OVERS_BEFORE_KILL, 120),
                    "the worker ended before its manager passed " + HAND_OVERS_BEFORE_KILL + " leases on: " + worker.logTail());

            worker.kill();

            LockInfo dead = locks.inspect(key);
            long runsLastWriter = fenceToken(database, key);
            try (LockHandle next = locks.acquire(LockRequest.of(key).mode(LockMode.OPTIMISTIC)
                    .maxWait(LEASE.multipliedBy(10)))) {
                long deadToken = dead.token().orElseThrow();
                assertTrue(next.token() > Math.max(runsLastWriter, deadToken), "the next JVM drew " + next.token()
                        + " after the killed JVM's writer " + runsLastWriter + " and its lease " + dead);
                if (dead.held()) {
                    Instant taken = locks.inspect(key).since().orElseThrow();
                    Instant ranOut = dead.until().orElseThrow();
                    assertFalse(taken.isBefore(ranOut), "taken at " + taken + " from the killed JVM's lease, live until " + ranOut);
                }
                try (Connection business = database.connect()) {
                    long value = Counter.read(business, key);
                    assertTrue(Counter.writeFenced(business, key, value + 1, next.token()), "the next holder's fenced write");
                    assertFalse(Counter.writeFenced(business, key, value + 2, deadToken),
                            "the killed JVM's lease wrote after the next holder");
                    assertFalse(Counter.writeFenced(business, key, value + 2, runsLastWriter),
                            "the killed JVM's last writer wrote again after the next holder");
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
