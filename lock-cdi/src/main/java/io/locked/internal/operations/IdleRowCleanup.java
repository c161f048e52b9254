package io.locked.internal.operations;

import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.internal.definition.CleanupSettings;
import io.locked.spi.LockRepository;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Deletes idle lock rows on a schedule, in one JVM at a time: a daemon thread {@code locked-cleanup}
 * runs a period after {@link #start()} and then every period. A run first makes sure this JVM holds
 * the optimistic lock {@value #KEY}; a JVM that cannot take it skips the round.
 *
 * <p>The lock is kept from one run to the next (its lease renewed by the watchdog), so while its
 * JVM lives it alone does the work, whatever the phase of the other JVMs' schedules; when it dies
 * its lease runs out and another JVM takes over. The lock only saves work: the repository never
 * deletes a held row and never lets a token go backwards, so two runs at once would still be safe.
 *
 * <p>Each run is logged at FINE on the logger {@value #LOGGER} with the number of rows deleted
 * (parameter 0), and each skipped round too; a failed run at WARNING, and the next round runs as
 * usual.
 */
public final class IdleRowCleanup implements AutoCloseable {
    /** The key of the cleanup's own lock. */
    public static final String KEY = "locked:cleanup";
    /** Where runs are logged. */
    public static final String LOGGER = "io.locked.cleanup";
    /** A run's log message; its parameter 0 is the number of rows deleted. */
    public static final String RAN = "Cleanup deleted {0} idle lock rows not acquired for {1}";
    /** A skipped round's log message. */
    public static final String SKIPPED = "Cleanup skipped: another JVM holds ''{0}''";
    private static final Logger LOG = Logger.getLogger(LOGGER);
    private static final Duration LEASE = Duration.ofMinutes(1);
    private static final long STOP_PATIENCE_SECONDS = 30;

    private final LockManager locks;
    private final LockRepository repository;
    private final CleanupSettings settings;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread cleanup = new Thread(task, "locked-cleanup");
        cleanup.setDaemon(true);
        return cleanup;
    });
    private LockHandle lock;

    /**
     * @param locks      the manager whose lock {@value #KEY} keeps the runs to one JVM
     * @param repository the rows to clean, the manager's own
     * @param settings   how idle a row must be, and how often to run
     */
    public IdleRowCleanup(LockManager locks, LockRepository repository, CleanupSettings settings) {
        this.locks = locks;
        this.repository = repository;
        this.settings = settings;
    }

    /** Schedules the runs: the first a period from now. */
    public void start() {
        long period = settings.every().toNanos();
        thread.scheduleWithFixedDelay(this::runOnce, period, period, TimeUnit.NANOSECONDS);
    }

    // Never throws: an exception would cancel the schedule.
    private void runOnce() {
        try {
            if (!holdLock()) {
                LOG.log(Level.FINE, SKIPPED, KEY);
                return;
            }
            int deleted = repository.deleteIdleRows(settings.idleAfter());
            LOG.log(Level.FINE, RAN, new Object[] {deleted, settings.idleAfter()});
        } catch (RuntimeException | Error failure) {
            LOG.warning("Cleanup of idle lock rows failed; the next run is in " + settings.every() + ": " + failure);
            LOG.log(Level.FINE, "Cleanup of idle lock rows failed", failure);
        }
    }

    private boolean holdLock() {
        if (lock != null && lock.isValid()) {
            return true;
        }
        releaseLock();
        lock = locks.tryAcquire(LockRequest.of(KEY).mode(LockMode.OPTIMISTIC).lease(LEASE)).orElse(null);
        return lock != null;
    }

    private void releaseLock() {
        if (lock == null) {
            return;
        }
        try {
            lock.close();
        } catch (LockException | IllegalStateException lostOrClosed) {
            // lost already (a pause, an outage: another JVM may run the cleanup now, as it should), or
            // the manager was closed first, which gave the lease back itself
        } finally {
            lock = null;
        }
    }

    /** Stops the schedule after the run in progress, if any, and releases the cleanup's lock. */
    @Override
    public void close() {
        try {
            thread.execute(this::releaseLock);
        } catch (java.util.concurrent.RejectedExecutionException closedAlready) {
            return;
        }
        thread.shutdown();
        try {
            if (!thread.awaitTermination(STOP_PATIENCE_SECONDS, TimeUnit.SECONDS)) {
                LOG.warning("Cleanup of idle lock rows did not stop within " + STOP_PATIENCE_SECONDS + " s");
                thread.shutdownNow();
            }
        } catch (InterruptedException e) {
            thread.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
