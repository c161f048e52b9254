package io.locked.bench;

import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.bench.AcquireLoad.Latencies;
import io.locked.jpa.JpaLockRepository;
import io.locked.jpa.LockStatements;
import jakarta.persistence.EntityManagerFactory;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The cleanup of many idle rows while other keys are acquired: the lock table of a database of its
 * own is filled with idle rows (never acquired) in one statement, then threads acquire and release
 * a key each through a {@link LockManager} for a baseline window, and go on while
 * {@code deleteIdleRows} runs, until it returns. Per acquirers' mode, one run each, the table
 * refilled and settled before each.
 */
final class CleanupMeasurement {
    /** A row must have gone this long unacquired; the fill's rows never were, the acquirers' keys are busy. */
    private static final Duration IDLE_FOR = Duration.ofMinutes(1);
    private static final String KEY_PREFIX = "cleanup-bench:";
    private static final OperatingSystemMXBean LOAD = ManagementFactory.getOperatingSystemMXBean();

    private final BenchDatabase database;
    private final int rows;
    private final int threads;
    private final Duration warmUp;
    private final Duration baseline;
    private final LockStatements statements;

    /**
     * @param rows       idle rows to fill the table with (MariaDB: at most 1,000,000, its sequence table's size)
     * @param threads    acquiring threads, a key each
     * @param warmUp     acquisitions before anything is recorded
     * @param baseline   how long the baseline is recorded, before the cleanup
     * @param statements the repository's path, which the cleanup runs on
     */
    CleanupMeasurement(BenchDatabase database, int rows, int threads, Duration warmUp, Duration baseline,
                       LockStatements statements) {
        this.database = database;
        this.rows = rows;
        this.threads = threads;
        this.warmUp = warmUp;
        this.baseline = baseline;
        this.statements = statements;
    }

    /**
     * One run: the acquirers' latencies before and during the cleanup, and the cleanup's work.
     *
     * @param fillSeconds    how long filling the table took
     * @param deleted        rows the cleanup deleted
     * @param cleanupSeconds how long the cleanup took
     * @param rowsLeft       rows in the table afterwards (the acquirers' keys)
     * @param loadAtStart    the machine's load average (1 minute) when the cleanup started: the
     *                       database server shares the machine, and so may other work
     * @param loadAtEnd      the same when it ended
     */
    record Run(LockMode mode, Latencies before, Latencies during, double fillSeconds, int deleted,
               double cleanupSeconds, long rowsLeft, double loadAtStart, double loadAtEnd) {
        double rowsPerSecond() {
            return deleted / cleanupSeconds;
        }
    }

    /** @return one run per mode, pessimistic first */
    List<Run> run() throws Exception {
        List<Run> runs = new ArrayList<>();
        try (HikariDataSource pool = database.cleanupPool(threads + 4)) {
            EntityManagerFactory factory = database.entityManagerFactory(pool);
            try {
                JpaLockRepository repository = JpaLockRepository.builder(factory).statements(statements).build();
                repository.createTableIfMissing();
                try (LockManager locks = LockManagerBuilder.on(repository).build()) {
                    for (LockMode mode : LockMode.values()) {
                        runs.add(run(pool, repository, locks, mode));
                    }
                }
            } finally {
                factory.close();
            }
        }
        return runs;
    }

    private Run run(HikariDataSource pool, JpaLockRepository repository, LockManager locks, LockMode mode)
            throws Exception {
        execute(pool, "DELETE FROM locked_lock");
        long fillStarted = System.nanoTime();
        fill(pool);
        double fillSeconds = seconds(fillStarted);
        database.settle(pool);

        List<String> keys = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            keys.add(KEY_PREFIX + mode + ":" + t);
        }
        AcquireLoad before = new AcquireLoad(locks, mode, keys);
        before.start();
        Thread.sleep(warmUp.toMillis());
        before.record();
        Thread.sleep(baseline.toMillis());
        Latencies baselineLatencies = before.stop();

        AcquireLoad during = new AcquireLoad(locks, mode, keys);
        during.start();
        during.record();
        double loadAtStart = LOAD.getSystemLoadAverage();
        long cleanupStarted = System.nanoTime();
        int deleted;
        double cleanupSeconds;
        try {
            deleted = repository.deleteIdleRows(IDLE_FOR);
            cleanupSeconds = seconds(cleanupStarted);
        } catch (RuntimeException failure) {
            during.stop();
            throw failure;
        }
        Latencies duringLatencies = during.stop();
        return new Run(mode, baselineLatencies, duringLatencies, fillSeconds, deleted, cleanupSeconds, count(pool),
                loadAtStart, LOAD.getSystemLoadAverage());
    }

    private void fill(HikariDataSource pool) throws SQLException {
        try (Connection connection = pool.getConnection();
             PreparedStatement insert = connection.prepareStatement(database.fillRows)) {
            insert.setInt(1, 1);
            insert.setInt(2, rows);
            insert.executeUpdate();
        }
    }

    private static void execute(HikariDataSource pool, String sql) throws SQLException {
        try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
            statement.executeUpdate(sql);
        }
    }

    private static long count(HikariDataSource pool) throws SQLException {
        try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement();
             ResultSet count = statement.executeQuery("SELECT COUNT(*) FROM locked_lock")) {
            count.next();
            return count.getLong(1);
        }
    }

    private static double seconds(long startedNanos) {
        return (System.nanoTime() - startedNanos) / 1e9;
    }
}
