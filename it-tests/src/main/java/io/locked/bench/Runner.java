package io.locked.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one case at one thread count, contended (every thread on one key) or not (a key per
 * thread): a warm-up, then a measured window. Latency is per cycle, from the start of acquiring to
 * the end of releasing.
 */
final class Runner {
    private static final int WARMING = 0;
    private static final int MEASURING = 1;
    private static final int STOPPING = 2;

    private final Duration warmUp;
    private final Duration window;

    Runner(Duration warmUp, Duration window) {
        this.warmUp = warmUp;
        this.window = window;
    }

    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT, "%.1f s warm-up and %.1f s measured per cell",
                warmUp.toMillis() / 1000.0, window.toMillis() / 1000.0);
    }

    /**
     * @param keyPrefix the keys are keyPrefix + thread index, or keyPrefix + "shared" when contended
     */
    Result run(Case benchCase, int threads, boolean contended, String keyPrefix) throws InterruptedException {
        Section shared = new Section();
        List<Section> sections = new ArrayList<>();
        List<Samples> latencies = new ArrayList<>();
        List<Samples> handOffs = new ArrayList<>();
        AtomicLong errors = new AtomicLong();
        AtomicReference<Throwable> firstError = new AtomicReference<>();
        Phase phase = new Phase();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Section section = contended ? shared : new Section();
            sections.add(section);
            Samples latency = new Samples();
            Samples handOff = new Samples();
            latencies.add(latency);
            handOffs.add(handOff);
            String key = keyPrefix + (contended ? "shared" : String.valueOf(t));
            Worker worker = new Worker(benchCase.cycle(), key, section, latency, handOff, errors, firstError);
            Thread thread = new Thread(() -> worker.loop(phase), "bench-" + t);
            workers.add(thread);
        }
        workers.forEach(Thread::start);
        Thread.sleep(warmUp.toMillis());
        phase.value = MEASURING;
        long started = System.nanoTime();
        Thread.sleep(window.toMillis());
        phase.value = STOPPING;
        long elapsed = System.nanoTime() - started;
        for (Thread worker : workers) {
            worker.join(120_000);
            if (worker.isAlive()) {
                throw new IllegalStateException(benchCase.name() + ": a worker did not stop within 2 minutes");
            }
        }
        long[] sorted = Samples.sortedUnion(latencies);
        long[] handOffSorted = Samples.sortedUnion(handOffs);
        long violations = (contended ? List.of(shared) : sections).stream().mapToLong(Section::violations).sum();
        return new Result(benchCase, threads, contended, sorted.length * 1e9 / elapsed,
                Samples.percentileMicros(sorted, 0.50), Samples.percentileMicros(sorted, 0.99),
                Samples.percentileMicros(sorted, 0.999), Samples.percentileMicros(handOffSorted, 0.50),
                violations, errors.get(), firstError.get());
    }

    /** One thread's loop; it records only the cycles that end inside the measured window. */
    private static final class Worker {
        private final Cycle cycle;
        private final String key;
        private final Section section;
        private final Samples latency;
        private final Samples handOff;
        private final AtomicLong errors;
        private final AtomicReference<Throwable> firstError;
        private long startedAt;
        private boolean measuring;

        Worker(Cycle cycle, String key, Section section, Samples latency, Samples handOff, AtomicLong errors,
               AtomicReference<Throwable> firstError) {
            this.cycle = cycle;
            this.key = key;
            this.section = section;
            this.latency = latency;
            this.handOff = handOff;
            this.errors = errors;
            this.firstError = firstError;
        }

        void loop(Phase phase) {
            Runnable inside = () -> {
                section.enter(startedAt, measuring ? handOff : null);
                section.exit();
            };
            int current;
            while ((current = phase.value) != STOPPING) {
                measuring = current == MEASURING;
                startedAt = System.nanoTime();
                try {
                    cycle.run(key, inside);
                } catch (Throwable failure) {
                    errors.incrementAndGet();
                    firstError.compareAndSet(null, failure);
                    continue;
                }
                long took = System.nanoTime() - startedAt;
                if (measuring && phase.value == MEASURING) {
                    latency.add(took);
                }
            }
        }
    }

    private static final class Phase {
        volatile int value = WARMING;
    }

    /** The figures of one run. */
    record Result(Case benchCase, int threads, boolean contended, double cyclesPerSecond, double p50, double p99,
                  double p999, double handOffP50, long violations, long errors, Throwable firstError) {
    }
}
