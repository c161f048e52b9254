package io.locked.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * Runs one case at one thread count, contended (every thread on one key) or not (a key per
 * thread), as slices: each slice is a warm-up, then a measured window. The benchmark interleaves
 * the slices of all cases, so that a slow spell of the machine or the server (a checkpoint, a
 * neighbour) falls on every case alike instead of on whichever ran then. Latency is per cycle,
 * from the start of acquiring to the end of releasing. CPU is the whole JVM's (every thread: the
 * cycles', the pool's, the lock manager's, GC and JIT, user and kernel) over the measured windows, per
 * measured cycle: unlike throughput, it does not depend on how much of the machine's cores the JVM
 * got. Beside it, the user CPU of the cycling threads alone: the work of the library and the driver,
 * without the kernel's socket work and the JVM's background, which makes it the steadier figure
 * for comparing two forms of one cycle. In a read/write case it also records each cycle's wait, from
 * asking for the lock until inside it, reads and writes apart.
 */
final class Runner {
    private static final int WARMING = 0;
    private static final int MEASURING = 1;
    private static final int STOPPING = 2;
    private static final OperatingSystemMXBean PROCESS =
            ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class);
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Duration warmUp;
    private final Duration window;
    private final int slices;

    /**
     * @param warmUp the warm-up of a whole cell, spread over its slices
     * @param window the measured time of a whole cell, spread over its slices
     * @param slices how many slices a cell is measured in
     */
    Runner(Duration warmUp, Duration window, int slices) {
        if (slices < 1) {
            throw new IllegalArgumentException("bench.slices must be at least 1, was " + slices);
        }
        this.warmUp = warmUp.dividedBy(slices);
        this.window = window.dividedBy(slices);
        this.slices = slices;
    }

    private volatile LongSupplier logFlushes;

    int slices() {
        return slices;
    }

    /**
     * Counts the server's log flushes in each measured window from now on ({@link BenchDatabase#logFlushes}):
     * a server-wide counter, so the figure holds while the benchmark is the server's only client.
     *
     * @param logFlushes reads the counter, or null where the server has none (H2)
     */
    void countLogFlushes(LongSupplier logFlushes) {
        this.logFlushes = logFlushes;
    }

    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT, "%.1f s warm-up and %.1f s measured per cell, in %d slices"
                        + " interleaved with the other cases'", slices * warmUp.toMillis() / 1000.0,
                slices * window.toMillis() / 1000.0, slices);
    }

    /** A whole cell in one go. */
    Result run(Case benchCase, int threads, boolean contended, String keyPrefix) throws InterruptedException {
        Tally tally = new Tally();
        for (int slice = 0; slice < slices; slice++) {
            runSlice(tally, benchCase, threads, contended, keyPrefix);
        }
        return tally.result(benchCase, threads, contended);
    }

    /**
     * One slice of a cell, added to its tally.
     *
     * @param keyPrefix the keys are keyPrefix + thread index, or keyPrefix + "shared" when contended
     */
    void runSlice(Tally tally, Case benchCase, int threads, boolean contended, String keyPrefix)
            throws InterruptedException {
        Section shared = new Section(benchCase.admits());
        List<Section> sections = new ArrayList<>();
        Phase phase = new Phase();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Section section = contended ? shared : new Section(benchCase.admits());
            sections.add(section);
            Samples latency = new Samples();
            Samples handOff = new Samples();
            Samples readWait = new Samples();
            Samples writeWait = new Samples();
            tally.latencies.add(latency);
            tally.handOffs.add(handOff);
            tally.readWaits.add(readWait);
            tally.writeWaits.add(writeWait);
            String key = keyPrefix + (contended ? "shared" : String.valueOf(t));
            Worker worker = new Worker(benchCase, key, section, latency, handOff, readWait, writeWait, tally.errors,
                    tally.firstError, tally.cyclingUserNanos);
            Thread thread = new Thread(() -> worker.loop(phase), "bench-" + t);
            workers.add(thread);
        }
        workers.forEach(Thread::start);
        Thread.sleep(warmUp.toMillis());
        phase.value = MEASURING;
        long started = System.nanoTime();
        long cpuAtStart = PROCESS.getProcessCpuTime();
        LongSupplier flushes = logFlushes;
        long flushesAtStart = flushes == null ? 0 : flushes.getAsLong();
        Thread.sleep(window.toMillis());
        phase.value = STOPPING;
        tally.cpuNanos += PROCESS.getProcessCpuTime() - cpuAtStart;
        tally.logFlushes = flushes == null ? -1 : Math.max(0, tally.logFlushes) + flushes.getAsLong() - flushesAtStart;
        tally.elapsedNanos += System.nanoTime() - started;
        for (Thread worker : workers) {
            worker.join(120_000);
            if (worker.isAlive()) {
                throw new IllegalStateException(benchCase.name() + ": a worker did not stop within 2 minutes");
            }
        }
        tally.violations += (contended ? List.of(shared) : sections).stream().mapToLong(Section::violations).sum();
    }

    /** What the slices of one cell measured so far. */
    static final class Tally {
        private final List<Samples> latencies = new ArrayList<>();
        private final List<Samples> handOffs = new ArrayList<>();
        /** Of a read/write case: each cycle's wait, from asking until inside, reads and writes apart. */
        private final List<Samples> readWaits = new ArrayList<>();
        private final List<Samples> writeWaits = new ArrayList<>();
        private final AtomicLong errors = new AtomicLong();
        private final AtomicReference<Throwable> firstError = new AtomicReference<>();
        private final AtomicLong cyclingUserNanos = new AtomicLong();
        private long elapsedNanos;
        private long cpuNanos;
        /** -1 where the server's flushes are not counted. */
        private long logFlushes = -1;
        private long violations;

        Result result(Case benchCase, int threads, boolean contended) {
            long[] sorted = Samples.sortedUnion(latencies);
            long[] handOffSorted = Samples.sortedUnion(handOffs);
            return new Result(benchCase, threads, contended, sorted.length * 1e9 / elapsedNanos,
                    Samples.percentileMicros(sorted, 0.50), Samples.percentileMicros(sorted, 0.99),
                    Samples.percentileMicros(sorted, 0.999), Samples.percentileMicros(handOffSorted, 0.50),
                    sorted.length == 0 ? Double.NaN : cpuNanos / 1000.0 / sorted.length,
                    sorted.length == 0 ? Double.NaN : cyclingUserNanos.get() / 1000.0 / sorted.length,
                    sorted.length == 0 || logFlushes < 0 ? Double.NaN : (double) logFlushes / sorted.length,
                    violations, errors.get(), firstError.get(), benchCase.writes() ? waits() : null);
        }

        private Waits waits() {
            long[] reads = Samples.sortedUnion(readWaits);
            long[] writes = Samples.sortedUnion(writeWaits);
            return new Waits(reads.length, Samples.percentileMicros(reads, 0.50), Samples.percentileMicros(reads, 0.99),
                    writes.length, Samples.percentileMicros(writes, 0.50), Samples.percentileMicros(writes, 0.99));
        }
    }

    /** One thread's loop; it records only the cycles that end inside the measured window. */
    private static final class Worker {
        private final Case benchCase;
        private final String key;
        private final Section section;
        private final Samples latency;
        private final Samples handOff;
        private final Samples readWait;
        private final Samples writeWait;
        private final AtomicLong errors;
        private final AtomicReference<Throwable> firstError;
        private final AtomicLong userNanos;
        private long startedAt;
        private long enteredAt;
        private boolean measuring;

        Worker(Case benchCase, String key, Section section, Samples latency, Samples handOff, Samples readWait,
               Samples writeWait, AtomicLong errors, AtomicReference<Throwable> firstError, AtomicLong userNanos) {
            this.benchCase = benchCase;
            this.key = key;
            this.section = section;
            this.latency = latency;
            this.handOff = handOff;
            this.readWait = readWait;
            this.writeWait = writeWait;
            this.errors = errors;
            this.firstError = firstError;
            this.userNanos = userNanos;
        }

        void loop(Phase phase) {
            Runnable inside = () -> {
                enteredAt = System.nanoTime();
                section.enter(startedAt, measuring ? handOff : null);
                section.exit();
            };
            int current;
            long userAtStart = -1;
            while ((current = phase.value) != STOPPING) {
                measuring = current == MEASURING;
                if (measuring && userAtStart < 0) {
                    userAtStart = THREADS.getCurrentThreadUserTime();
                }
                boolean writing = benchCase.writes()
                        && ThreadLocalRandom.current().nextInt(100) < benchCase.writePercent();
                startedAt = System.nanoTime();
                try {
                    (writing ? benchCase.write() : benchCase.cycle()).run(key, inside);
                } catch (Throwable failure) {
                    errors.incrementAndGet();
                    firstError.compareAndSet(null, failure);
                    continue;
                }
                long took = System.nanoTime() - startedAt;
                if (measuring && phase.value == MEASURING) {
                    latency.add(took);
                    if (benchCase.writes()) {
                        (writing ? writeWait : readWait).add(enteredAt - startedAt);
                    }
                }
            }
            if (userAtStart >= 0) {
                userNanos.addAndGet(THREADS.getCurrentThreadUserTime() - userAtStart);
            }
        }
    }

    private static final class Phase {
        volatile int value = WARMING;
    }

    /**
     * The figures of one run.
     *
     * @param cpuMicros         the JVM's CPU time per measured cycle, in microseconds
     * @param cyclingUserMicros the cycling threads' user CPU time per measured cycle, in microseconds
     * @param logFlushesPerCycle the server's log flushes (fsyncs) per measured cycle, NaN where not counted
     * @param waits             of a read/write case, the waits of reads and of writes; null in the others
     */
    record Result(Case benchCase, int threads, boolean contended, double cyclesPerSecond, double p50, double p99,
                  double p999, double handOffP50, double cpuMicros, double cyclingUserMicros,
                  double logFlushesPerCycle, long violations,
                  long errors, Throwable firstError, Waits waits) {
    }

    /**
     * How long the cycles of a read/write case waited for the lock, from asking until inside, in
     * microseconds: reads and writes apart, as a writer's wait under a stream of readers is what tells
     * whether readers starve it.
     *
     * @param reads  the measured reads
     * @param writes the measured writes
     */
    record Waits(long reads, double readP50, double readP99, long writes, double writeP50, double writeP99) {
    }
}
