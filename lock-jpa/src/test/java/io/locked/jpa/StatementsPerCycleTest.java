package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.jpa.testing.CountingDataSource;
import io.locked.jpa.testing.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What one lock cycle (acquire, then release, on a key whose row exists) sends to the database:
 * statements, and commits, rollbacks and autocommit switches, counted under the pool, so that the
 * pool's own resets count too. The speed of a cycle is mostly its round trips (docs/performance.md,
 * "What a cycle costs"): a change that adds one shows here, not only as a slower benchmark.
 */
class StatementsPerCycleTest {
    private static final int CYCLES = 20;

    /** database, path, mode, statements per cycle, transaction calls per cycle. */
    static Stream<Arguments> cycles() {
        return Stream.of(
                // START TRANSACTION, the lock statement, COMMIT
                Arguments.of(TestDatabase.MARIADB, LockStatements.NATIVE, LockMode.PESSIMISTIC, 3, 0),
                Arguments.of(TestDatabase.MARIADB, LockStatements.NATIVE, LockMode.OPTIMISTIC, 2, 0),
                Arguments.of(TestDatabase.MYSQL8, LockStatements.NATIVE, LockMode.PESSIMISTIC, 3, 0),
                Arguments.of(TestDatabase.MYSQL8, LockStatements.NATIVE, LockMode.OPTIMISTIC, 2, 0),
                // the driver sends the transaction's start with its first statement: the switches cost nothing
                Arguments.of(TestDatabase.POSTGRESQL, LockStatements.NATIVE, LockMode.PESSIMISTIC, 1, 3),
                // the take and the release each send their settings first, in the same round trip (the
                // release's: synchronous_commit off); a statement with its settings counts once
                Arguments.of(TestDatabase.POSTGRESQL, LockStatements.NATIVE, LockMode.OPTIMISTIC, 2, 0),
                // embedded: no round trips, and each statement that may wait reads the session's lock timeout first
                Arguments.of(TestDatabase.H2, LockStatements.NATIVE, LockMode.PESSIMISTIC, 4, 3),
                Arguments.of(TestDatabase.H2, LockStatements.NATIVE, LockMode.OPTIMISTIC, 5, 0));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("cycles")
    void aCycleOnAnExistingRowSendsWhatItAlwaysSent(TestDatabase database, LockStatements path, LockMode mode,
                                                     int statements, int transactionCalls) throws Exception {
        database.requireReachable();
        CountingDataSource counting = new CountingDataSource(database);
        HikariConfig config = new HikariConfig();
        config.setDataSource(counting);
        config.setMaximumPoolSize(4);
        config.setPoolName("locked-counting-" + database.name().toLowerCase());
        try (HikariDataSource pool = new HikariDataSource(config)) {
            EntityManagerFactory factory = database.entityManagerFactory(pool);
            try {
                JpaLockRepository repository = JpaLockRepository.builder(factory).statements(path).build();
                repository.createTableIfMissing();
                LockRequest request = LockRequest.of("cycle:" + UUID.randomUUID()).mode(mode).waitFor(Duration.ZERO);
                try (LockManager locks = LockManagerBuilder.on(repository).build()) {
                    for (int i = 0; i < 3; i++) {
                        cycle(locks, request); // creates the row, warms the pool
                    }
                    long statementsBefore = counting.statements();
                    long transactionCallsBefore = counting.transactionCalls();
                    for (int i = 0; i < CYCLES; i++) {
                        cycle(locks, request);
                    }
                    double perCycle = (counting.statements() - statementsBefore) / (double) CYCLES;
                    double transactionCallsPerCycle = (counting.transactionCalls() - transactionCallsBefore) / (double) CYCLES;
                    System.out.printf("statements per cycle %s %s %s: %.2f statements, %.2f transaction calls%n",
                            database, path, mode, perCycle, transactionCallsPerCycle);
                    assertEquals(statements, perCycle, 0.0, "statements per cycle");
                    assertEquals(transactionCalls, transactionCallsPerCycle, 0.0, "commits, rollbacks, autocommit switches");
                }
            } finally {
                factory.close();
            }
        }
    }

    private static void cycle(LockManager locks, LockRequest request) {
        try (LockHandle held = locks.acquire(request)) {
            held.token();
        }
    }
}
