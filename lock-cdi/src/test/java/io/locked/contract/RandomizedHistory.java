package io.locked.contract;

import io.locked.api.LockException;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A randomized concurrency run: managers that stand for JVMs (each on a store of its own), several
 * threads each ({@link RandomWorker}: both modes, waits of zero, short and longer, short leases,
 * reentrant entries, {@code callLocked}, hand-overs to another thread, minimum holds and lock-delays,
 * {@link TimedAcquisitions}), a read/write worker each ({@link ReadWriteWorker}: crowds of readers
 * arriving together, reads, writes) with long jobs beside them ({@link LongLeases}), and an operator's
 * manager that forces the release of a random exclusive key now and then ({@link Operator}). The
 * recorded history must show, per key, no overlap and no token out of order that no holder involved
 * was told of ({@link HistoryChecker}, {@link ReadWriteHistoryChecker}); no section entering within a
 * minimum hold ({@link MinimumHoldChecker}); every loss a holder was told of must be explained
 * ({@link LossExplanations}), and every hold a forced release reports ended must have been told, or
 * released before; every {@code LockException} names its key; nothing hangs. At the end each manager
 * is closed while threads of its own hold locks and then enter them again ({@link DrainWithReentries});
 * nothing of the run's keys is left held, before the managers close and after; each key is free, with
 * a higher token than any recorded.
 *
 * <p>Each worker draws its operations from its own {@link Random}, seeded from the run's seed, which
 * every failure names: {@code -Dlocked.random.seed=N} replays the same operations (the interleaving
 * is the machine's).
 */
public final class RandomizedHistory {
    /** The system property that fixes the seed, to replay a failed run. */
    public static final String SEED_PROPERTY = "locked.random.seed";
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final int MAX_OPERATIONS_PER_THREAD = 400;
    private static final int READ_WRITE_KEYS = 2;
    private final long seed;
    private final String prefix = "random:" + UUID.randomUUID() + ":";
    private final List<String> keys;
    private final Map<String, HistoryRecorder> histories = new LinkedHashMap<>();
    private ReadWriteKeys readWrite = ReadWriteKeys.NONE;
    private final Set<String> shortLeases = ConcurrentHashMap.newKeySet();
    private final List<MinimumHold> holds = new CopyOnWriteArrayList<>();
    private final List<String> problems = new CopyOnWriteArrayList<>();
    private final Map<String, String> lossReasons = new ConcurrentHashMap<>();
    /** When each hold ({@code key#token}) was seen released by its holder: its close had returned. */
    private final Map<String, Long> releasedNanos = new ConcurrentHashMap<>();
    /** When each hold ({@code key#token}) was told of its loss by its close, or by the call that held it. */
    private final Map<String, Long> toldNanos = new ConcurrentHashMap<>();
    private final AtomicInteger notAcquired = new AtomicInteger();
    private final AtomicLong longestOverWaitNanos = new AtomicLong();
    /** What the acquisition that answered most past its wait asked for. */
    private volatile String longestOverWait = "";
    /** Whether the store checks a hold and ends its session in separate round trips (MySQL 8). */
    private boolean endsSessionsAfterASeparateCheck;
    private boolean endsSessionsAnInstantAfterTheCheck;
    private int minimumHoldEvery = 48;
    private Operator operator;

    /**
     * What a run found.
     *
     * @param seed     the run's seed
     * @param silent   overlaps and tokens out of order no holder involved was told of
     * @param problems everything else the lock must not do
     * @param summary  one line: what the run did
     * @param history  every section and forced release, to read a failure by
     */
    public record Outcome(long seed, List<String> silent, List<String> problems, String summary, String history) {
        /** @return whether the lock kept every promise the run checks */
        public boolean kept() {
            return silent.isEmpty() && problems.isEmpty();
        }

        /** @return the failures, the seed to replay them with, and the summary */
        public String describe() {
            return "seed " + seed + " (replay with -D" + SEED_PROPERTY + "=" + seed + "): " + summary
                    + "\nsilent: " + silent + "\nproblems: " + problems;
        }
    }

    /**
     * @param seed     the seed of the workers' random operations
     * @param keyCount how many exclusive keys the workers share, a few for contention (two at least)
     */
    public RandomizedHistory(long seed, int keyCount) {
        this.seed = seed;
        List<String> names = new ArrayList<>();
        for (int i = 0; i < keyCount; i++) {
            names.add(prefix + i);
            histories.put(prefix + i, new HistoryRecorder());
        }
        this.keys = List.copyOf(names);
    }

    /**
     * For a store that checks a pessimistic hold and ends its session in two round trips (MySQL 8,
     * docs/operations.md): a hold that releases itself between them lends its pooled session to
     * new work, which the forced release ends. That loss is told, and the forced release answers
     * "free", or "ended" for the released hold where a next holder committed a later token before it
     * read the row; the run accepts it only in exactly that shape ({@link LossExplanations}).
     *
     * @return this run
     */
    public RandomizedHistory endsSessionsAfterASeparateCheck() {
        endsSessionsAfterASeparateCheck = true;
        return this;
    }

    /**
     * For a store whose end of a pessimistic hold's session lands an instant after the check that the hold is
     * still open (PostgreSQL's {@code pg_terminate_backend} is a signal; MariaDB's {@code KILL}, even inside the
     * checking compound statement, flags a session that acts on it at its next step; H2's {@code ABORT_SESSION}
     * can meet a commit under way; docs/guarantees.md): a hold whose holder rolls its
     * release back in that instant (a clock token's release) leaves nothing in the row to tell it from an
     * ended one, and the forced release answers "ended" for it. The run accepts that answer only in exactly
     * that shape ({@link LossExplanations}): the holder, never told of a loss, left during the forced release.
     *
     * @return this run
     */
    public RandomizedHistory endsSessionsAnInstantAfterTheCheck() {
        endsSessionsAnInstantAfterTheCheck = true;
        return this;
    }

    /**
     * Adds read/write locks on keys of their own: a worker per manager, in the modes given.
     *
     * @param modes the modes the store gives read/write locks in ({@code LockRepository.refusal(mode, READ)} empty)
     * @return this run
     */
    public RandomizedHistory readWriteIn(Set<LockMode> modes) {
        readWrite = new ReadWriteKeys(prefix + "rw:", modes.isEmpty() ? 0 : READ_WRITE_KEYS, modes);
        return this;
    }

    /**
     * How often a worker's operation asks for a minimum hold: one in {@code every} (48 unless set); a negative
     * control asks more often, to be sure to meet a broken hold.
     *
     * @param every one in how many operations
     * @return this run
     */
    public RandomizedHistory minimumHoldsEvery(int every) {
        minimumHoldEvery = every;
        return this;
    }

    /** @return the seed of {@value #SEED_PROPERTY}, or a new one */
    public static long seed() {
        String fixed = System.getProperty(SEED_PROPERTY);
        return fixed == null || fixed.isBlank() ? new Random().nextLong() : Long.parseLong(fixed.trim());
    }

    List<String> keys() {
        return keys;
    }

    int minimumHoldEvery() {
        return minimumHoldEvery;
    }

    void record(String key, CriticalSection section, boolean shortLease) {
        histories.get(key).record(section);
        if (shortLease) {
            shortLeases.add(key + "#" + section.token());
        }
    }

    void held(MinimumHold hold) {
        holds.add(hold);
    }

    /** The holder's release of this hold returned, without telling a loss, at this instant. */
    void released(String key, long token, long nanos) {
        releasedNanos.put(key + "#" + token, nanos);
    }

    void told(String key, long token, String reason) {
        toldNanos.put(key + "#" + token, System.nanoTime());
        lossReasons.put(key + "#" + token, reason);
    }

    /** An acquisition's answer came this long after it began; the summary shows the most past its wait. */
    void waited(LockRequest request, long tookNanos) {
        long over = tookNanos - request.maxWait().toNanos();
        if (longestOverWaitNanos.accumulateAndGet(over, Math::max) == over) {
            longestOverWait = request.type() + " " + request.mode() + " wait " + request.maxWait().toMillis() + " ms";
        }
    }

    /** @param what something the lock must not do, stamped with the time it was seen, to place it in the history */
    void problem(String what) {
        problems.add("at " + System.nanoTime() + ": " + what);
    }

    void checkNamesKey(LockException failure, String key) {
        if (failure instanceof LockNotAcquiredException) {
            notAcquired.incrementAndGet();
        }
        if (!key.equals(failure.key()) || !failure.getMessage().contains(key)) {
            problem("a " + failure.getClass().getSimpleName() + " for '" + key + "' names another key: "
                    + failure.key() + ", " + failure.getMessage());
        }
    }

    /**
     * Runs the workers for about {@code load}, closes their managers with a drain, then checks the history.
     *
     * @param managers          one per simulated JVM, each on a store of its own and built with a drain
     *                          ({@code drainOnClose}); closed when this returns
     * @param threadsPerManager worker threads per manager
     * @param operatorManager   the operator's manager, which forces releases and checks the keys after
     * @param load              how long the workers start new operations
     * @return what the run found
     */
    public Outcome run(List<LockManager> managers, int threadsPerManager, LockManager operatorManager, Duration load)
            throws InterruptedException {
        long started = System.nanoTime();
        long deadline = started + load.toNanos();
        operator = new Operator(operatorManager, keys, seed, this);
        ExecutorService receivers = Executors.newCachedThreadPool(daemon("receiver"));
        List<Thread> workers = new ArrayList<>();
        int seeds = 0;
        for (int m = 0; m < managers.size(); m++) {
            String process = "m" + m;
            LockManager locks = managers.get(m);
            for (int t = 0; t < threadsPerManager; t++) {
                String name = process + "t" + t;
                RandomWorker worker = new RandomWorker(name, locks, seed * 31 + seeds++, this, receivers);
                workers.add(new Thread(() -> runWorker(name, () -> worker.runUntil(deadline, MAX_OPERATIONS_PER_THREAD)),
                        "random-" + name));
            }
            if (!readWrite.isEmpty()) {
                ReadWriteWorker worker = new ReadWriteWorker(process, locks, seed * 31 + seeds++, this, readWrite);
                workers.add(new Thread(() -> runWorker(process + "/rw", () -> worker.runUntil(deadline, MAX_OPERATIONS_PER_THREAD)),
                        "random-" + process + "-rw"));
            }
            LongLeases jobs = new LongLeases(locks, process + "j", prefix + "job:" + process + ":", seed * 31 + seeds++, this, m == 0);
            workers.add(new Thread(() -> runWorker(process + "/jobs", () -> jobs.holdUntil(deadline)), "random-" + process + "-jobs"));
        }
        workers.add(new Thread(() -> operator.forceReleasesUntil(deadline), "random-operator"));
        workers.forEach(thread -> {
            thread.setDaemon(true);
            thread.start();
        });
        long joinBy = deadline + PATIENCE.toNanos();
        for (Thread thread : workers) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(joinBy - System.nanoTime())));
            if (thread.isAlive()) {
                problem("hung: " + thread.getName() + " at " + Arrays.toString(thread.getStackTrace()));
            }
        }
        receivers.shutdownNow();
        Map<String, List<CriticalSection>> exclusive = new LinkedHashMap<>();
        histories.forEach((key, recorder) -> exclusive.put(key, recorder.sections()));
        new EndOfRun(this, operatorManager).closeAndCheck(managers, exclusive, readWrite);
        return outcome(Duration.ofNanos(System.nanoTime() - started));
    }

    /** A worker's body, whose failure is a problem of the run. */
    private interface Body {
        void run() throws Exception;
    }

    private void runWorker(String name, Body body) {
        try {
            body.run();
        } catch (Exception | AssertionError failed) {
            problem(name + " failed: " + failed);
        }
    }

    private Outcome outcome(Duration took) {
        List<ForcedRelease> forced = operator.releases();
        LossExplanations explanations = new LossExplanations(forced, key -> histories.get(key).sections(), releasedNanos,
                toldNanos, shortLeases, endsSessionsAfterASeparateCheck, endsSessionsAnInstantAfterTheCheck);
        List<String> silent = new ArrayList<>();
        int sections = 0;
        int told = 0;
        int signalled = 0;
        Map<String, List<CriticalSection>> judged = new LinkedHashMap<>();
        for (Map.Entry<String, HistoryRecorder> key : histories.entrySet()) {
            List<CriticalSection> history = key.getValue().sections();
            HistoryChecker.Verdict verdict = HistoryChecker.check(history);
            silent.addAll(verdict.silent().stream().map(v -> key.getKey() + ": " + v).toList());
            sections += history.size();
            told += verdict.lossesSignalled();
            signalled += verdict.signalled().size();
            judged.put(key.getKey(), history);
        }
        int readWriteSections = 0;
        int mostReaders = 0;
        for (String key : readWrite.keys()) {
            ReadWriteHistoryChecker.Verdict verdict = ReadWriteHistoryChecker.check(readWrite.accesses(key));
            silent.addAll(verdict.silent().stream().map(v -> key + ": " + v).toList());
            signalled += verdict.signalled().size();
            mostReaders = Math.max(mostReaders, verdict.mostReadersAtOnce());
        }
        for (Map.Entry<String, List<CriticalSection>> key : readWrite.sections().entrySet()) {
            readWriteSections += key.getValue().size();
            judged.put(key.getKey(), key.getValue());
        }
        explanations.unexplained(judged, lossReasons, holds).forEach(this::problem);
        MinimumHoldChecker.violations(holds, key -> histories.get(key).sections(), forced)
                .forEach(violation -> problem("minimum hold: " + violation));
        if (sections == 0) {
            problem("no critical section at all: the run checked nothing");
        }
        String summary = String.format("%d sections on %d keys in %d ms, %d not acquired, %d losses told"
                        + " (%d signalled overlaps, %d the next work of a session whose hold released itself,"
                        + " %d holders whose commit the end of their session met),"
                        + " forced releases: %d ended, %d of free keys, %d refused;"
                        + " %d minimum holds (%d binding, %d with a lock-delay, %d told their lease ran out);"
                        + " %d read/write sections, at most %d readers at once;"
                        + " the longest answer came %d ms past its wait (%s)",
                sections, keys.size(), took.toMillis(), notAcquired.get(), told, signalled,
                explanations.nextWorkEnded(), explanations.commitsMetByTheEnd(),
                forced.stream().filter(f -> f.ended() != null).count(),
                forced.stream().filter(f -> f.outcome().equals("free")).count(),
                forced.stream().filter(f -> f.outcome().startsWith("refused")).count(),
                holds.size(), holds.stream().filter(MinimumHold::binding).count(),
                holds.stream().filter(hold -> hold.delayNanos() > 0).count(),
                holds.stream().filter(hold -> hold.lossReason() != null && hold.lossReason().contains(MinimumHold.COUNT_RAN_OUT)).count(),
                readWriteSections, mostReaders,
                TimeUnit.NANOSECONDS.toMillis(longestOverWaitNanos.get()), longestOverWait);
        return new Outcome(seed, silent, List.copyOf(problems), summary, history(forced));
    }

    private String history(List<ForcedRelease> forced) {
        StringBuilder text = new StringBuilder();
        histories.forEach((key, recorder) -> {
            text.append("key ").append(key).append('\n');
            recorder.sections().stream().sorted(Comparator.comparingLong(CriticalSection::enterNanos))
                    .forEach(section -> text.append("  ").append(section.toLine()).append('\n'));
        });
        text.append(readWrite.history());
        holds.forEach(hold -> text.append("hold ").append(hold.key()).append(' ').append(hold).append('\n'));
        lossReasons.forEach((hold, reason) -> text.append("told ").append(hold).append(": ").append(reason).append('\n'));
        releasedNanos.forEach((hold, nanos) -> text.append("released ").append(hold).append(' ').append(nanos).append('\n'));
        forced.forEach(release -> text.append(release.toLine()).append('\n'));
        return text.toString();
    }

    /**
     * Writes a failed run's history where the build keeps its output, to read it by.
     *
     * @param outcome the run's outcome
     * @param label   which store the run was on, part of the file's name
     * @return the file written
     */
    public static Path writeHistory(Outcome outcome, String label) throws IOException {
        String name = "randomized-" + label.replaceAll("[^A-Za-z0-9_-]", "-") + "-seed-" + outcome.seed() + ".txt";
        Path file = Path.of("target", name);
        Files.createDirectories(file.getParent());
        return Files.writeString(file, outcome.describe() + "\n" + outcome.history());
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return task -> {
            Thread thread = new Thread(task, "random-" + name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
