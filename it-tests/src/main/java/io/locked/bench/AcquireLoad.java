package io.locked.bench;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Threads that each acquire and release a key of their own through one {@link LockManager}, in one
 * mode, with an empty critical section, and time each acquisition (the {@code acquire} call alone,
 * not the release) while they are told to record.
 */
final class AcquireLoad {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private final LockManager locks;
    private final LockMode mode;
    private final List<String> keys;
    private final List<Thread> threads = new ArrayList<>();
    private final List<Samples> samples = new ArrayList<>();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicReference<Throwable> firstError = new AtomicReference<>();
    private volatile boolean recording;
    private volatile boolean stopping;

    /** @param keys one per thread */
    AcquireLoad(LockManager locks, LockMode mode, List<String> keys) {
        this.locks = locks;
        this.mode = mode;
        this.keys = List.copyOf(keys);
    }

    /** Starts the threads, not yet recording. */
    void start() {
        for (String key : keys) {
            Samples own = new Samples();
            samples.add(own);
            Thread thread = new Thread(() -> loop(key, own), "acquire-" + key);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
    }

    /** From now on, until {@link #stop()}, each acquisition's latency is recorded. */
    void record() {
        recording = true;
    }

    /** Stops the threads and returns the latencies recorded. */
    Latencies stop() throws InterruptedException {
        stopping = true;
        for (Thread thread : threads) {
            thread.join(120_000);
            if (thread.isAlive()) {
                throw new IllegalStateException(thread.getName() + " did not stop within 2 minutes");
            }
        }
        return Latencies.of(Samples.sortedUnion(samples), errors.get(), firstError.get());
    }

    private void loop(String key, Samples own) {
        LockRequest request = LockRequest.of(key).mode(mode).maxWait(WAIT);
        while (!stopping) {
            boolean recorded = recording;
            long started = System.nanoTime();
            try (LockHandle ignored = locks.acquire(request)) {
                if (recorded) {
                    own.add(System.nanoTime() - started);
                }
            } catch (RuntimeException failure) {
                errors.incrementAndGet();
                firstError.compareAndSet(null, failure);
            }
        }
    }

    /**
     * What one load recorded.
     *
     * @param count      acquisitions recorded
     * @param p50        median latency, µs
     * @param p99        99th percentile, µs
     * @param max        the longest, µs
     * @param errors     failed acquisitions (not recorded)
     * @param firstError the first failure, or null
     */
    record Latencies(int count, double p50, double p99, double max, long errors, Throwable firstError) {
        static Latencies of(long[] sorted, long errors, Throwable firstError) {
            return new Latencies(sorted.length, Samples.percentileMicros(sorted, 0.50),
                    Samples.percentileMicros(sorted, 0.99), Samples.percentileMicros(sorted, 1.0), errors, firstError);
        }
    }
}
