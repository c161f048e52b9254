package io.locked.internal.operations;

import io.locked.spi.LockRepository;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Whether the locks can work: the lock store answers and has its table, and the lease watchdog runs.
 * A check answers within its timeout whatever the database does: the store is read on a thread of
 * the check's own, and a read that has not answered is not waited for beyond the timeout, nor started
 * again while it hangs (the store's own bounds end it later). A readiness probe that polls a hung
 * database so piles up no threads and no connections.
 */
public final class StoreReadiness implements AutoCloseable {
    private final LockRepository repository;
    private final BooleanSupplier watchdogAlive;
    private final Duration timeout;
    private final ExecutorService reader;
    private Future<?> unanswered;
    private long unansweredSinceNanos;

    /**
     * What one check found.
     *
     * @param up   whether locks can be taken
     * @param data what was checked and how it answered, for the health endpoint
     */
    public record Report(boolean up, Map<String, String> data) {
    }

    /**
     * @param repository    the lock store
     * @param watchdogAlive whether the lease watchdog still runs
     * @param timeout       how long a check waits for the store
     */
    public StoreReadiness(LockRepository repository, BooleanSupplier watchdogAlive, Duration timeout) {
        if (repository == null || watchdogAlive == null || timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("repository, watchdog and a positive timeout are required");
        }
        this.repository = repository;
        this.watchdogAlive = watchdogAlive;
        this.timeout = timeout;
        this.reader = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, "locked-readiness");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** @return the store's and the watchdog's state now, within the timeout */
    public synchronized Report check() {
        Map<String, String> data = new LinkedHashMap<>();
        boolean watchdog = watchdogAlive.getAsBoolean();
        data.put("watchdog", watchdog ? "running" : "stopped");
        boolean store = storeAnswers(data);
        return new Report(watchdog && store, Map.copyOf(data));
    }

    private boolean storeAnswers(Map<String, String> data) {
        long now = System.nanoTime();
        if (unanswered != null && !unanswered.isDone()) {
            data.put("store", "not answering: the check started " + millis(now - unansweredSinceNanos)
                    + " ms ago has not returned");
            return false;
        }
        if (unanswered != null) {
            Throwable lateFailure = failureOf(unanswered);
            unanswered = null;
            if (lateFailure != null) {
                // the last read failed after its check gave up (a store that takes long to fail, such as
                // one created again on each read while the database refuses): that failure is the news,
                // and the next check has the outcome of a read started now
                unanswered = reader.submit(() -> repository.checkReachable(timeout));
                unansweredSinceNanos = now;
                data.put("store", failure(lateFailure));
                return false;
            }
        }
        Future<?> read = reader.submit(() -> repository.checkReachable(timeout));
        try {
            read.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            data.put("store", "answering");
            data.put("answered-in-ms", Long.toString(millis(System.nanoTime() - now)));
            return true;
        } catch (TimeoutException hung) {
            unanswered = read;
            unansweredSinceNanos = now;
            data.put("store", "not answering within " + timeout.toMillis() + " ms");
            return false;
        } catch (ExecutionException failed) {
            // a store bounds its read by the same timeout, so a stalled database fails the read (a network
            // timeout) at about the moment the check gives up, and on a busy machine before this thread wakes:
            // an answer that came after the timeout is the store not answering within it, as for a hang
            data.put("store", System.nanoTime() - now >= timeout.toNanos()
                    ? "not answering within " + timeout.toMillis() + " ms" : failure(failed.getCause()));
            return false;
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            data.put("store", "not checked: interrupted");
            return false;
        }
    }

    private static Throwable failureOf(Future<?> done) {
        try {
            done.get();
            return null;
        } catch (ExecutionException failed) {
            return failed.getCause();
        } catch (InterruptedException | java.util.concurrent.CancellationException notRead) {
            if (notRead instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return null;
        }
    }

    // a database that refuses connections is said so: it is down, not slow, and no pool size helps
    private static String failure(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof java.net.ConnectException refused) {
                return "refused: the database refuses connections (" + refused.getMessage() + ")";
            }
        }
        return "failing: " + failure.getMessage();
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    @Override
    public void close() {
        reader.shutdownNow();
    }
}
