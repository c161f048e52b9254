package io.locked.it.fault;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockMode;
import io.locked.it.process.CounterFence;
import io.locked.it.server.DatabaseProxy;
import io.locked.it.server.MariaDbEndpoint;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Connection cut: the holder JVM reaches the database through a proxy, which resets all its
 * connections while the holder is inside its critical section; new connections still get
 * through. The database ends a pessimistic holder's transaction at once and the next holder gets
 * in, while the cut-off holder still writes its counter afterwards: caught as a lost update and a
 * signalled overlap without a fence, refused with one. An optimistic lease lives in the row, so it
 * survives the cut if a renewal gets through a new connection in time.
 */
class FaultConnectionCutTest {
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @AfterAll
    static void printTable() throws Exception {
        FaultTable.print();
    }

    @ParameterizedTest(name = "{0}, fence {1}")
    @MethodSource("io.locked.it.fault.FaultCases#modesAndFences")
    void holderCutOff(LockMode mode, CounterFence fence) throws Exception {
        FaultSettings settings = FaultSettings.fromSystemProperties();
        MariaDbEndpoint database = MariaDbEndpoint.shared();
        FaultOutcome outcome;
        try (DatabaseProxy proxy = DatabaseProxy.start(database);
             FaultRun run = FaultRun.start(dir, settings, mode, fence, database, database.through(proxy.port()))) {
            Takeover ended;
            do {
                run.gateHolder();
                run.awaitWaiter();
                EventLog.Mark cut = run.mark();
                int reset = proxy.resetAll();
                assertTrue(reset > 0, "the holder had no connection through the proxy to cut");
                ended = run.awaitTakeoverOrHeld(cut);
                EventLog.Mark opened = run.mark();
                run.openGate();
                run.awaitEveryWorkerCycled(opened);
            } while (run.injectAgain(ended, 1));
            outcome = run.finish("connection cut", mode, fence);
        }
        FaultTable.add(outcome);
        outcome.assertLockSafe();
        if (mode == LockMode.PESSIMISTIC) {
            outcome.assertEveryInjection(Takeover.TAKEN_OVER);
        }
        if (fence == CounterFence.NONE) {
            if (outcome.takenOver() > 0) {
                outcome.assertLateWriteCaught();
            }
        } else {
            outcome.assertFenceHeld();
        }
    }
}
