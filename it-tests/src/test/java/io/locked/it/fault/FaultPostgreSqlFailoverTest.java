package io.locked.it.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockMode;
import io.locked.contract.CriticalSection;
import io.locked.it.process.CounterFence;
import io.locked.it.server.PostgreSqlEndpoint;
import io.locked.jpa.LockTokens;
import io.locked.jpa.testing.server.PrivatePostgreSql;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * PostgreSQL failover under load: a private primary with a streaming standby (never the shared
 * server), {@value #THREADS} threads in each of three worker JVMs on one key, reaching whichever server
 * takes writes through a multi-host URL ({@code targetServerType=primary}). While a holder is
 * inside its critical section and others wait, the primary is killed (SIGKILL of every process) and
 * the standby promoted ({@code pg_promote}). Then nothing may overlap silently, every worker must
 * go on cycling on the new primary, and the counter, written with the lock's fence, may lose no
 * update where the replication is synchronous.
 *
 * <p>With the application's commits asynchronous and the lock's synchronous
 * ({@code locked.postgresql.synchronous-commit}), the stream stops after the holder's acquisition: the
 * lease must survive, and no confirmed update be lost.
 *
 * <p>The asynchronous case is the negative control: the primary's log stops reaching the standby
 * (its WAL senders frozen) before the holder's acquisition, as in a lag at the moment of failover.
 * The new primary then lacks the last committed leases and counter writes: the holder's lease is
 * gone, a waiter takes the key at once, and updates that were confirmed are lost. The lock must
 * still tell every holder involved (no silent overlap).
 */
class FaultPostgreSqlFailoverTest {
    private static final int THREADS = 4;
    /** Longer than the failover here (a promotion and a reconnection, about a second). */
    private static final Duration WAIT = Duration.ofSeconds(5);
    /**
     * A lease the holder renews on the new primary, if the lease is there. The holder renews every
     * third of it, and a renewal that fails waits for the next: a third of the lease must be longer
     * than the failover (2 to 3 s here, from the kill to the first statement on the new primary).
     */
    private static final Duration LEASE = Duration.ofSeconds(9);
    private static final Duration STREAMING_PATIENCE = Duration.ofSeconds(60);
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    /** How the primary's commits reach the standby. */
    enum Replication {
        /** {@code synchronous_standby_names = '*'}, {@code synchronous_commit = on}: a commit waits for the standby's disk */
        SYNCHRONOUS,
        /** the default: a commit waits for the primary's disk only, and the standby lags at the failover */
        LAGGING_ASYNCHRONOUS,
        /**
         * a synchronous standby, but {@code synchronous_commit = local} (the application's commits wait for
         * no standby) and {@code locked.postgresql.synchronous-commit=on} (the lock's durable ones do); the
         * standby lags from the holder's acquisition on
         */
        LOCK_COMMITS_SYNCHRONOUS
    }

    @AfterAll
    static void printTable() throws Exception {
        FaultTable.print();
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource({"OPTIMISTIC, SYNCHRONOUS, LIBRARY", "PESSIMISTIC, SYNCHRONOUS, LIBRARY",
            "OPTIMISTIC, LAGGING_ASYNCHRONOUS, NONE", "PESSIMISTIC, LAGGING_ASYNCHRONOUS, NONE",
            "OPTIMISTIC, LOCK_COMMITS_SYNCHRONOUS, NONE"})
    void thePrimaryDiesUnderAHolderAndTheStandbyTakesOver(LockMode mode, Replication replication, CounterFence fence)
            throws Exception {
        Map<String, String> settings = switch (replication) {
            case SYNCHRONOUS -> Map.of("synchronous_standby_names", "*");
            case LAGGING_ASYNCHRONOUS -> Map.of();
            case LOCK_COMMITS_SYNCHRONOUS -> Map.of("synchronous_standby_names", "*", "synchronous_commit", "local");
        };
        List<String> repository = replication == Replication.LOCK_COMMITS_SYNCHRONOUS
                ? List.of("synchronous-commit=on") : List.of();
        FaultSettings defaults = FaultSettings.fromSystemProperties();
        FaultSettings run = new FaultSettings(defaults.load(), defaults.betweenFaults(), LEASE, WAIT,
                defaults.workers(), THREADS, defaults.patience());
        FaultOutcome outcome;
        Takeover ended;
        TokenOrder tokens;
        try (PrivatePostgreSql primary = PrivatePostgreSql.start(Files.createDirectories(dir.resolve("primary")), settings);
             PrivatePostgreSql standby = primary.startStandby(dir.resolve("standby"))) {
            awaitStreaming(primary, replication == Replication.LAGGING_ASYNCHRONOUS ? "async" : "sync");
            PostgreSqlEndpoint servers = new PostgreSqlEndpoint("jdbc:postgresql://127.0.0.1:" + primary.port()
                    + ",127.0.0.1:" + standby.port() + "/postgres?targetServerType=primary&hostRecheckSeconds=1"
                    + "&connectTimeout=3", primary.user(), primary.password());
            try (FaultRun workers = FaultRun.start(Files.createDirectories(dir.resolve("run")), run, mode,
                    LockTokens.WRITTEN, fence, servers, servers, repository)) {
                if (replication == Replication.LAGGING_ASYNCHRONOUS) {
                    primary.pauseWalSenders();
                    // the lock's holder at the pause may have taken it before: the gated section comes
                    // after a section that began after the pause, so its take reached no standby
                    workers.awaitCycleEnteredAfter(workers.mark());
                }
                workers.gateHolder();
                workers.awaitWaiter();
                if (replication == Replication.LOCK_COMMITS_SYNCHRONOUS) {
                    // every commit before the holder's take reached the standby: that take waited for it
                    primary.pauseWalSenders();
                }
                EventLog.Mark crashed = workers.mark();
                primary.crash();
                standby.promote();
                EventLog.Mark promoted = workers.mark();
                ended = workers.awaitTakeoverOrHeld(promoted);
                workers.injectedOnce(ended);
                System.out.printf("failover run: %s %s %s: crash and promotion took %d ms, then %s seen after %d ms%n",
                        mode, replication, fence, millis(crashed, promoted), ended, millis(promoted, workers.mark()));
                EventLog.Mark opened = workers.mark();
                workers.openGate();
                workers.awaitEveryWorkerCycled(opened);
                outcome = workers.finish("PostgreSQL failover, " + replication.name().toLowerCase().replace('_', ' '),
                        mode, fence);
                tokens = TokenOrder.of(workers.recordedSections(), crashed, promoted);
                System.out.printf("failover run: %s %s %s: %s%n", mode, replication, fence, tokens);
            }
        }
        FaultTable.add(outcome);
        outcome.assertLockSafe();
        // the new primary draws its tokens from the same machine's clock: above every token drawn
        // before the crash, whether or not those reached it
        assertTrue(tokens.lowestAfter() > tokens.highestBefore(), () -> tokens + "\n" + outcome);
        switch (replication) {
            case SYNCHRONOUS -> {
                outcome.assertFenceHeld();
                // a lease was on the standby before its take returned, and its holder renews it on
                // the new primary; a pessimistic holder's row lock died with its session
                outcome.assertEveryInjection(mode == LockMode.OPTIMISTIC ? Takeover.HELD : Takeover.TAKEN_OVER);
            }
            case LOCK_COMMITS_SYNCHRONOUS -> {
                // the lease reached the standby before its take returned, though the application's
                // commits did not wait: held across the failover, and no confirmed update lost
                outcome.assertFenceHeld();
                outcome.assertEveryInjection(Takeover.HELD);
            }
            case LAGGING_ASYNCHRONOUS -> {
                // the holder's lease never reached the standby (a pessimistic hold dies with its
                // session either way): a waiter takes the key at once, the holder is told, and its late
                // write overwrites an increment (no fence here), beside the confirmed ones the lag lost
                assertEquals(List.of(Takeover.TAKEN_OVER), outcome.episodes(), outcome::toString);
                outcome.assertLateWriteCaught();
            }
        }
    }

    /**
     * The tokens of the sections entered before the crash, and of those entered after the promotion.
     *
     * @param highestBefore the highest token of a section entered before the crash
     * @param lowestAfter   the lowest token of a section entered after the promotion
     * @param after         how many sections were entered after the promotion
     */
    private record TokenOrder(long highestBefore, long lowestAfter, int after) {
        static TokenOrder of(List<CriticalSection> sections, EventLog.Mark crashed, EventLog.Mark promoted) {
            long highestBefore = sections.stream().filter(section -> section.enterNanos() < crashed.nanos())
                    .mapToLong(CriticalSection::token).max().orElseThrow();
            List<CriticalSection> after = sections.stream().filter(section -> section.enterNanos() > promoted.nanos())
                    .toList();
            return new TokenOrder(highestBefore, after.stream().mapToLong(CriticalSection::token).min().orElseThrow(),
                    after.size());
        }

        @Override
        public String toString() {
            return "tokens before the crash up to " + highestBefore + ", the " + after + " sections after the promotion"
                    + " from " + lowestAfter;
        }
    }

    private static long millis(EventLog.Mark from, EventLog.Mark to) {
        return TimeUnit.NANOSECONDS.toMillis(to.nanos() - from.nanos());
    }

    /** Waits until the standby streams from the primary in that state ({@code sync} or {@code async}). */
    private static void awaitStreaming(PrivatePostgreSql primary, String state) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + STREAMING_PATIENCE.toNanos();
        List<String> states = new ArrayList<>();
        while (System.nanoTime() - deadline < 0) {
            states.clear();
            try (Connection connection = primary.connect(); Statement statement = connection.createStatement();
                 ResultSet rows = statement.executeQuery("SELECT sync_state FROM pg_stat_replication WHERE state = 'streaming'")) {
                while (rows.next()) {
                    states.add(rows.getString(1));
                }
            }
            if (states.equals(List.of(state))) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(50); // the poll's pace: replication has no event to wait on
        }
        throw new AssertionError("the standby did not stream as " + state + " within " + STREAMING_PATIENCE + ": " + states);
    }
}
