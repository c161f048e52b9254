package io.locked.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.locked.bench.CleanupMeasurement.Run;
import io.locked.jpa.LockStatements;
import io.locked.jpa.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The cleanup benchmark's code path ({@link CleanupBenchmark}) on 20,000 idle rows instead of a
 * million, so that a change that breaks it shows in the build: every idle row is deleted while the
 * acquirers run, their keys' rows stay, and no acquisition fails. It asserts no figure: the
 * benchmark reports those.
 */
class CleanupMeasurementTest {
    private static final int ROWS = 20_000;
    private static final int THREADS = 4;

    @ParameterizedTest
    @EnumSource(value = BenchDatabase.class, names = {"H2", "MARIADB", "POSTGRESQL"})
    void deletesEveryIdleRowWhileOtherKeysAreAcquired(BenchDatabase database) throws Exception {
        switch (database) {
            case MARIADB -> TestDatabase.MARIADB.requireReachable();
            case POSTGRESQL -> TestDatabase.POSTGRESQL.requireReachable();
            default -> { }
        }
        List<Run> runs = new CleanupMeasurement(database, ROWS, THREADS, Duration.ofMillis(200), Duration.ofMillis(500),
                LockStatements.AUTO).run();
        assertEquals(2, runs.size(), "one run per mode");
        for (Run run : runs) {
            assertEquals(ROWS, run.deleted(), run.mode() + ": rows deleted");
            assertEquals(THREADS, run.rowsLeft(), run.mode() + ": the acquirers' rows are not all that is left");
            assertEquals(0, run.before().errors(), run.mode() + ": acquisitions failed before the cleanup: "
                    + run.before().firstError());
            assertEquals(0, run.during().errors(), run.mode() + ": acquisitions failed during the cleanup: "
                    + run.during().firstError());
        }
    }
}
