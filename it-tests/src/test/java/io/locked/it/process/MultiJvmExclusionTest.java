package io.locked.it.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockMode;
import io.locked.it.process.ExclusionRun.Outcome;
import io.locked.jpa.LockStatements;
import io.locked.jpa.LockTokens;
import io.locked.jpa.testing.TestDatabase;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.function.BiFunction;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Three JVMs of eight threads each take one key over and over. Every critical section is written
 * down by the worker and checked here, independently of the lock's own state: no overlap, tokens
 * strictly increasing, and a counter incremented by a non-atomic read-then-write ends exact.
 */
class MultiJvmExclusionTest {
    private static final int PROCESSES = 3;
    private static final int THREADS = 8;
    private static final int CYCLES = 20;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"MARIADB, PESSIMISTIC", "MARIADB, OPTIMISTIC", "POSTGRESQL, PESSIMISTIC", "POSTGRESQL, OPTIMISTIC",
            "MYSQL8, PESSIMISTIC", "MYSQL8, OPTIMISTIC"})
    void processesNeverOverlapOnOneKey(TestDatabase database, LockMode mode) throws Exception {
        Outcome outcome = run(database, "cycles", mode.name());
        assertExclusive(outcome);
    }

    /** The same through the JPA path: EntityManager, PESSIMISTIC_WRITE and the @Version compare-and-set. */
    @ParameterizedTest(name = "JPA path {0} {1}")
    @CsvSource({"MARIADB, PESSIMISTIC", "MARIADB, OPTIMISTIC", "MYSQL8, PESSIMISTIC", "MYSQL8, OPTIMISTIC"})
    void processesOnTheJpaPathNeverOverlapOnOneKey(TestDatabase database, LockMode mode) throws Exception {
        Outcome outcome = run(database, "cycles", mode.name(), LockStatements.JPA);
        assertExclusive(outcome);
    }

    /**
     * The same with clock tokens: most releases roll their tokens back, and the tokens the checker
     * reads must still increase strictly across the JVMs. (Not MySQL's native path, which commits
     * them as written tokens: its written-token case above is the same run.)
     */
    @ParameterizedTest(name = "clock tokens {0} {1}")
    @CsvSource({"MARIADB, AUTO", "POSTGRESQL, AUTO", "MARIADB, JPA"})
    void processesWithClockTokensNeverOverlapOnOneKey(TestDatabase database, LockStatements statements) throws Exception {
        Outcome outcome = run(database, "cycles", LockMode.PESSIMISTIC.name(), statements, LockTokens.CLOCK);
        assertExclusive(outcome);
    }

    /**
     * The same through a {@code @Locked} bean on Weld SE in each JVM. On MariaDB only: the interceptor
     * hands the call to the same lock manager whatever the database, and MySQL 8 runs above through
     * both paths.
     */
    @ParameterizedTest(name = "@Locked {0} {1}")
    @CsvSource({"MARIADB, PESSIMISTIC", "MARIADB, OPTIMISTIC"})
    void lockedBeansInProcessesNeverOverlap(TestDatabase database, LockMode mode) throws Exception {
        Outcome outcome = run(database, "locked-bean", mode.name());
        assertExclusive(outcome);
    }

    /** The negative control: without the lock the same harness must find overlaps. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"MARIADB", "MYSQL8"})
    void withoutTheLockTheCheckerFindsOverlaps(TestDatabase database) throws Exception {
        Outcome outcome = run(database, "unlocked", "-");
        assertEquals(PROCESSES * THREADS * CYCLES, outcome.sections().size(), "cycles recorded");
        assertTrue(outcome.violations().stream().anyMatch(v -> v.startsWith("overlap")),
                "24 unlocked threads in 3 JVMs produced no overlap: the harness cannot see a broken lock");
    }

    private static void assertExclusive(Outcome outcome) {
        assertEquals(PROCESSES * THREADS * CYCLES, outcome.sections().size(), "cycles recorded");
        assertEquals(List.of(), outcome.violations());
        assertEquals(PROCESSES * THREADS * CYCLES, outcome.counter(), "the counter lost increments");
    }

    private Outcome run(TestDatabase database, String command, String mode) throws Exception {
        return run(database, command, mode, LockStatements.AUTO);
    }

    private Outcome run(TestDatabase database, String command, String mode, LockStatements statements) throws Exception {
        return run(database, command, mode, statements, LockTokens.WRITTEN);
    }

    private Outcome run(TestDatabase database, String command, String mode, LockStatements statements, LockTokens tokens)
            throws Exception {
        database.requireReachable();
        String key = "it:exclusion:" + command + ":" + mode + ":" + UUID.randomUUID();
        database.open(2).close(); // the lock table exists before the workers start
        BiFunction<Integer, Path, List<String>> arguments = command.equals("locked-bean")
                ? (worker, history) -> List.of(command, database.name(), mode, key, String.valueOf(THREADS),
                        String.valueOf(CYCLES), history.toString())
                : ExclusionRun.cycles(key, List.of("database=" + database.name(), "mode=" + mode, "threads=" + THREADS,
                        "cycles=" + CYCLES, "statements=" + statements, "tokens=" + tokens));
        // the workers reach this JVM's database: for MYSQL8 its private server
        Outcome outcome = ExclusionRun.run(dir, database::connect, key,
                Collections.nCopies(PROCESSES, database.workerEnvironment()), arguments);
        System.out.println(outcome.summary("multi-JVM " + command + " " + database + " " + statements + " " + tokens + " " + mode + ", " + PROCESSES
                + " processes x " + THREADS + " threads", PROCESSES * THREADS * CYCLES));
        return outcome;
    }
}
