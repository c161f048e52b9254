package io.locked.it.fault;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockMode;
import io.locked.jpa.LockTokens;
import io.locked.it.process.CounterFence;
import io.locked.it.server.PrivateMariaDb;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Database restart: a private MariaDB server (never the shared one) is stopped while a holder is
 * inside its critical section and others wait, alternately with SIGTERM (a clean shutdown, started
 * again as soon as the waiters noticed) and SIGKILL (a crash, down for longer than a lease), then
 * started again on the same data directory. Waiters must end with a
 * LockException (how long past their wait is recorded), nothing may hang, every worker must
 * complete cycles after the restart, and no overlap may go unsignalled. With clock tokens
 * ({@link LockTokens#CLOCK}) the tokens, mostly rolled back at release, must go on increasing across
 * the restart.
 */
class FaultDatabaseRestartTest {
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @AfterAll
    static void printTable() throws Exception {
        FaultTable.print();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"PESSIMISTIC, WRITTEN", "OPTIMISTIC, WRITTEN", "PESSIMISTIC, CLOCK"})
    void databaseRestartsUnderLoad(LockMode mode, LockTokens tokens) throws Exception {
        FaultSettings settings = FaultSettings.fromSystemProperties();
        Path serverDir = Files.createDirectories(dir.resolve("server"));
        Path runDir = Files.createDirectories(dir.resolve("run"));
        FaultOutcome outcome;
        List<Takeover> afterCrash = new ArrayList<>();
        try (PrivateMariaDb server = PrivateMariaDb.start(serverDir);
             FaultRun run = FaultRun.start(runDir, settings, mode, tokens, CounterFence.NONE, server.endpoint(), server.endpoint())) {
            Takeover ended;
            // one injection each in the suite's short run: a clean shutdown under row locks, a
            // crash (down for longer than a lease) under leases; longer runs alternate both
            boolean crash = mode == LockMode.OPTIMISTIC;
            do {
                run.gateHolder();
                run.awaitWaiter();
                EventLog.Mark stopped = run.mark();
                server.stop(crash);
                run.awaitEveryWaiterFailed(stopped);
                if (crash) {
                    // a crash keeps the server down for longer than a lease: optimistic leases expire meanwhile
                    run.awaitFailureALeaseAfter(stopped);
                }
                server.start();
                EventLog.Mark restarted = run.mark();
                ended = run.awaitTakeoverOrHeld(restarted);
                EventLog.Mark opened = run.mark();
                run.openGate();
                run.awaitEveryWorkerCycled(opened);
                if (crash) {
                    afterCrash.add(ended);
                }
                crash = !crash;
            } while (run.injectAgain(ended, 1));
            outcome = run.finish("database restart", mode, CounterFence.NONE);
        }
        FaultTable.add(outcome);
        outcome.assertLockSafe();
        if (mode == LockMode.PESSIMISTIC) {
            // the restart ended the holder's transaction: its row lock is gone
            outcome.assertEveryInjection(Takeover.TAKEN_OVER);
        }
        // down for longer than a lease: no lease can have survived
        assertTrue(afterCrash.stream().allMatch(ended -> ended == Takeover.TAKEN_OVER),
                () -> "a lock outlived a crash longer than its lease: " + afterCrash + "\n" + outcome);
    }
}
