package io.locked.api;

import io.locked.internal.DefaultLockManager;
import io.locked.internal.base.LockMetrics;
import io.locked.internal.base.TimeSource;
import io.locked.internal.metrics.MicrometerPresence;
import io.locked.internal.telemetry.TelemetryPresence;
import io.locked.spi.LockRepository;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * Builds a {@link LockManager} on a lock store, for use without a CDI container.
 *
 * <pre>{@code
 * LockManager locks = LockManagerBuilder.on(new JpaLockRepository(entityManagerFactory)).build();
 * try (LockHandle lock = locks.acquire(LockRequest.of("stock:42"))) {
 *     ... // at most one holder of "stock:42" at a time, across JVMs
 * }
 * }</pre>
 */
public final class LockManagerBuilder {
    private final LockRepository repository;
    private Clock clock = Clock.systemUTC();
    private int watchdogThreads = 1;
    private Duration sessionCheckInterval = DEFAULT_SESSION_CHECK;
    private LockMetrics metrics;
    private LockMetrics telemetry = LockMetrics.NONE;
    private Duration drain = Duration.ZERO;
    private Duration readerSlotKeep = DEFAULT_READER_SLOT_KEEP;
    private Duration rowHandOverRun = DEFAULT_ROW_HAND_OVER_RUN;
    private Duration leaseKeep = Duration.ZERO;
    private Executor asyncExecutor;

    /** How often a pessimistic hold's database session is checked by default: every 5 seconds. */
    public static final Duration DEFAULT_SESSION_CHECK = Duration.ofSeconds(5);
    /** How long a JVM's emptied optimistic reader slot stays held by default: 2 ms ({@link #keepReaderSlotsFor}). */
    public static final Duration DEFAULT_READER_SLOT_KEEP = Duration.ofMillis(2);
    /** How long a run of row hand-overs between a manager's threads may last by default: 20 ms ({@link #handOverRowsFor}). */
    public static final Duration DEFAULT_ROW_HAND_OVER_RUN = Duration.ofMillis(20);
    /** The longest run of row hand-overs a manager may be given ({@link #handOverRowsFor}). */
    public static final Duration MAX_ROW_HAND_OVER_RUN = Duration.ofSeconds(10);
    /** The longest keep of a released lease a manager may be given ({@link #keepLeasesFor}): a tenth of its longest run. */
    public static final Duration MAX_LEASE_KEEP = Duration.ofMillis(100);

    private LockManagerBuilder(LockRepository repository) {
        this.repository = repository;
    }

    /**
     * @param repository the lock store, not null
     * @return a builder
     */
    public static LockManagerBuilder on(LockRepository repository) {
        if (repository == null) {
            throw new IllegalArgumentException("Lock repository must not be null");
        }
        return new LockManagerBuilder(repository);
    }

    /**
     * The client wall clock, used only to label holders in the lock table; lease start, expiry and
     * takeover are judged by the database's clock whatever this says. Default: system UTC.
     *
     * @param wallClock not null
     * @return this builder
     */
    public LockManagerBuilder clock(Clock wallClock) {
        if (wallClock == null) {
            throw new IllegalArgumentException("Clock must not be null");
        }
        this.clock = wallClock;
        return this;
    }

    /**
     * Threads that schedule lease renewals and session checks. Default: 1. The renewals and checks
     * themselves run on threads of their own, one per lock with a call in flight, so a call that hangs
     * until its statement's timeout delays no other lock and no release.
     *
     * @param threads at least 1
     * @return this builder
     */
    public LockManagerBuilder watchdogThreads(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("Watchdog threads must be at least 1, was " + threads);
        }
        this.watchdogThreads = threads;
        return this;
    }

    /**
     * How often the watchdog checks, while a pessimistic lock is held, that the database still has
     * the lock's session and transaction (one cheap round trip on the lock's connection, bounded by
     * half the interval and at most 5 s). A session that died (an idle-in-transaction timeout, a
     * failover, a firewall reset) has lost its row lock at once: within one interval the handle turns
     * invalid, and its close throws {@link LockLostException}. Default {@link #DEFAULT_SESSION_CHECK}.
     *
     * @param interval positive
     * @return this builder
     */
    public LockManagerBuilder sessionCheckEvery(Duration interval) {
        if (interval == null || interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("Session check interval must be positive, was " + interval);
        }
        this.sessionCheckInterval = interval;
        return this;
    }

    /**
     * The Micrometer registry that receives the lock's metrics (see {@code docs/operations.md}). The
     * parameter is typed {@code Object} so that this class loads without Micrometer. Default: Micrometer's
     * global registry ({@code Metrics.globalRegistry}) when Micrometer is on the class path, else no metrics.
     *
     * @param registry an {@code io.micrometer.core.instrument.MeterRegistry}, not null
     * @return this builder
     * @throws IllegalArgumentException if the registry is null or not a {@code MeterRegistry}, or Micrometer
     *                                  is not on the class path
     */
    public LockManagerBuilder meterRegistry(Object registry) {
        this.metrics = MicrometerPresence.on(registry);
        return this;
    }

    /**
     * Reports each lock's wait and hold as spans, and the lock's metrics, through OpenTelemetry (see
     * {@code docs/telemetry.md}), with each span naming the lock's rendered key. Same as
     * {@code openTelemetry(openTelemetry, true)}.
     *
     * @param openTelemetry an {@code io.opentelemetry.api.OpenTelemetry}, not null
     * @return this builder
     * @throws IllegalArgumentException if the argument is null or not an {@code OpenTelemetry}, or the
     *                                  OpenTelemetry API is not on the class path
     */
    public LockManagerBuilder openTelemetry(Object openTelemetry) {
        return openTelemetry(openTelemetry, true);
    }

    /**
     * Reports each lock's wait and hold as spans, children of the span current on the acquiring thread,
     * and the lock's metrics, through OpenTelemetry (see {@code docs/telemetry.md}). The parameter is typed
     * {@code Object} so that this class loads without OpenTelemetry. Default: no spans and no OpenTelemetry
     * metrics. Micrometer's metrics ({@link #meterRegistry}) are reported beside these, not instead.
     *
     * @param openTelemetry an {@code io.opentelemetry.api.OpenTelemetry}, not null
     * @param renderedKeys  true: spans carry each lock's rendered key ({@code order:42}) in {@code locked.key};
     *                      false: only its name ({@code order:{id}}, {@link LockRequest#name()}), where
     *                      keys must not reach the traces (personal data, a tracing backend that bills by
     *                      attribute value)
     * @return this builder
     * @throws IllegalArgumentException if the argument is null or not an {@code OpenTelemetry}, or the
     *                                  OpenTelemetry API is not on the class path
     */
    public LockManagerBuilder openTelemetry(Object openTelemetry, boolean renderedKeys) {
        this.telemetry = TelemetryPresence.on(openTelemetry, renderedKeys);
        return this;
    }

    /**
     * How long {@link LockManager#close()} waits for the locks still held to be released, renewing
     * their leases meanwhile, before it stops the watchdog: at an application's shutdown, a job that
     * finishes within it frees its key at once, and another instance takes over on its next trigger
     * instead of a lease later. Default zero: close at once. The CDI manager uses
     * {@code locked.shutdown.drain} (default 10 s).
     *
     * @param bound zero or positive
     * @return this builder
     * @throws IllegalArgumentException for null or a negative bound
     */
    public LockManagerBuilder drainOnClose(Duration bound) {
        if (bound == null || bound.isNegative()) {
            throw new IllegalArgumentException("The drain on close must be zero or positive, was " + bound);
        }
        this.drain = bound;
        return this;
    }

    /**
     * How long the slot that this manager's {@code OPTIMISTIC} readers of a key share stays held once its
     * last reader left, for the manager's next reader of the key, which joins it without a statement, or
     * next writer, which keeps it for the readers after its write if it gets the writer row meanwhile. A
     * thread that reads, writes and reads again then sends the statements of the write alone. The costs:
     * a writer of another JVM waits up to that long more; and the last reader out of a slot an operator
     * ended is not told at its release (that release sends nothing): the readers inside learn it at the
     * slot's next renewal. Zero: the last reader out releases the slot. Default
     * {@link #DEFAULT_READER_SLOT_KEEP}. {@code PESSIMISTIC} slots are never kept: each holds a connection.
     * At most 1,024 slots are kept at once per manager (a stream of reads of distinct keys keeps no more; the
     * last reader out of a slot past that releases it), and their keeps end one after another on one timer.
     *
     * @param keep zero or positive
     * @return this builder
     * @throws IllegalArgumentException for null or a negative keep
     */
    public LockManagerBuilder keepReaderSlotsFor(Duration keep) {
        if (keep == null || keep.isNegative()) {
            throw new IllegalArgumentException("The keep of a reader slot must be zero or positive, was " + keep);
        }
        this.readerSlotKeep = keep;
        return this;
    }

    /**
     * How long this manager may pass a key's row lock from thread to thread in one transaction before it lets
     * other JVMs in: with clock tokens on MariaDB's and PostgreSQL's native path, a {@code PESSIMISTIC} holder
     * whose key another thread of this manager waits for hands it the row, its transaction and its connection
     * (one statement, nothing committed). Each run lasts between half this bound and the whole of it, drawn
     * anew, and ends with a release that ends the transaction. Other JVMs' waiters of the key queue in the
     * database meanwhile: the bound is what a run adds to their wait. Longer runs hand over more rows per
     * transaction; zero turns the hand-over off, each release ending its transaction. The CDI manager uses
     * {@code locked.hand-over.row-run}. Default {@link #DEFAULT_ROW_HAND_OVER_RUN}.
     *
     * @param run zero up to {@link #MAX_ROW_HAND_OVER_RUN}
     * @return this builder
     * @throws IllegalArgumentException for null, a negative run or one above the most
     */
    public LockManagerBuilder handOverRowsFor(Duration run) {
        if (run == null || run.isNegative() || run.compareTo(MAX_ROW_HAND_OVER_RUN) > 0) {
            throw new IllegalArgumentException("The run of row hand-overs must be zero up to "
                    + MAX_ROW_HAND_OVER_RUN.toSeconds() + " s, was " + run);
        }
        this.rowHandOverRun = run;
        return this;
    }

    /**
     * How long an {@code OPTIMISTIC} lease stays kept after its release when no other thread of this manager waits
     * for its key, for the manager's next take of the key: that take passes the kept lease on in one statement (a
     * new token, the new holder, a new lease), where a release and a take were two, so a thread that locks one key
     * again and again commits once a cycle instead of twice. A run of such takes lasts at most a second; then the
     * release is sent and the key's next take here first pauses 100 ms, so that another JVM's waiter finds the row
     * free. Never kept: a minimum hold's release, a read/write lock's rows, a lease that might run out within twice
     * the keep. At most 1,024 leases are kept at once; closing the manager releases them at once.
     *
     * <p>The costs: a key released and not taken again stays taken that long, showing its last holder; a key this
     * manager takes again and again stays with it for a run, which another JVM's waiter waits for; a holder whose
     * lease an operator ended is not told at its release (which sends nothing): the loss is logged when the keep
     * ends or the next take finds it. The CDI manager uses {@code locked.hand-over.lease-keep}. Default zero:
     * every release is sent.
     *
     * @param keep zero up to {@link #MAX_LEASE_KEEP}
     * @return this builder
     * @throws IllegalArgumentException for null, a negative keep or one above the most
     */
    public LockManagerBuilder keepLeasesFor(Duration keep) {
        if (keep == null || keep.isNegative() || keep.compareTo(MAX_LEASE_KEEP) > 0) {
            throw new IllegalArgumentException("The keep of a released lease must be zero up to "
                    + MAX_LEASE_KEEP.toMillis() + " ms, was " + keep);
        }
        this.leaseKeep = keep;
        return this;
    }

    /**
     * Where the asynchronous acquisitions ({@link LockManager#acquireAsync} and the like, and {@code @Locked}
     * methods returning {@code Uni} or a stage on an event loop) wait. Each waiting acquisition occupies one
     * of its threads for its whole wait, so an executor that queues tasks adds its queue's wait to the
     * request's own: give one that starts a thread per task, or has threads to spare. Default: a virtual
     * thread per acquisition on Java 21+, else an unbounded pool of daemon threads; the manager shuts its
     * default down when it closes, and leaves an executor given here alone.
     *
     * @param executor not null
     * @return this builder
     * @throws IllegalArgumentException for null
     */
    public LockManagerBuilder asyncExecutor(Executor executor) {
        if (executor == null) {
            throw new IllegalArgumentException("The executor of asynchronous acquisitions must not be null");
        }
        this.asyncExecutor = executor;
        return this;
    }

    /** @return a new lock manager; close it to stop its lease watchdog */
    public LockManager build() {
        DefaultLockManager manager = new DefaultLockManager(repository, TimeSource.system(clock), watchdogThreads,
                sessionCheckInterval, LockMetrics.both(metrics != null ? metrics : MicrometerPresence.globalRegistryOrNone(),
                telemetry));
        manager.drainFor(drain);
        manager.keepReaderSlotsFor(readerSlotKeep);
        manager.passKeysOn(rowHandOverRun, leaseKeep);
        manager.asyncExecutor(asyncExecutor);
        return manager;
    }
}
