package io.locked.contract;

import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockInfo;
import io.locked.api.LockManager;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
import java.util.stream.Collectors;

/**
 * A randomized concurrency run: managers that stand for JVMs (each on a store of its own), several
 * threads each ({@link RandomWorker}: both modes, waits of zero, short and longer, short leases,
 * reentrant entries, {@code callLocked}, hand-overs to another thread), and an operator's manager that
 * forces the release of a random key now and then, all on a few keys. The recorded history must
 * show, per key, no overlap and no token out of order that no holder involved was told of
 * ({@link HistoryChecker}); every loss a holder was told of must be explained by a forced release of
 * that very hold or by a short lease, and every hold a forced release reports ended must have been
 * told; every {@code LockException} names its key; nothing hangs; and afterwards each key is free,
 * with a higher token than any recorded.
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
    private final long seed;
    private final List<String> keys;
    private final Map<String, HistoryRecorder> histories = new LinkedHashMap<>();
    private final Set<String> shortLeases = ConcurrentHashMap.newKeySet();
    private final List<ForcedRelease> forced = new CopyOnWriteArrayList<>();
    private final List<String> problems = new CopyOnWriteArrayList<>();
    private final Map<String, String> lossReasons = new ConcurrentHashMap<>();
    private final AtomicInteger notAcquired = new AtomicInteger();
    private final AtomicLong longestOverWaitNanos = new AtomicLong();
    /** The forced releases that explained a loss of {@link #endedNextWorkOfAReleasedSession}. */
    private final Set<ForcedRelease> explainedLosses = new HashSet<>();
    /** Whether the store checks a hold and ends its session in separate round trips (MySQL 8). */
    private boolean endsSessionsAfterASeparateCheck;

    /**
     * One forced release by the operator.
     *
     * @param key         the key
     * @param startNanos  when the call began
     * @param endNanos    when it returned
     * @param ended       the hold it reports it ended, or null
     * @param outcome     what it answered
     */
    record ForcedRelease(String key, long startNanos, long endNanos, LockInfo ended, String outcome) {
        /** @return whether it ended a hold it could name by its token */
        boolean endedToken() {
            return ended != null && ended.token() != null;
        }

        /** @return whether it ended a session without knowing which hold that was */
        boolean endedUnnamed() {
            return ended != null && ended.token() == null;
        }
    }

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
     * @param keyCount how many keys the workers share, a few for contention
     */
    public RandomizedHistory(long seed, int keyCount) {
        this.seed = seed;
        String prefix = "random:" + UUID.randomUUID() + ":";
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
     * "free"; the run accepts it only in exactly that shape ({@link #endedNextWorkOfAReleasedSession}).
     *
     * @return this run
     */
    public RandomizedHistory endsSessionsAfterASeparateCheck() {
        endsSessionsAfterASeparateCheck = true;
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

    void record(String key, CriticalSection section, boolean shortLease) {
        histories.get(key).record(section);
        if (shortLease) {
            shortLeases.add(key + "#" + section.token());
        }
    }

    void told(String key, long token, String reason) {
        lossReasons.put(key + "#" + token, reason);
    }

    /** An acquisition's answer came this long after it began; the summary shows the most past its wait. */
    void waited(Duration maxWait, long tookNanos) {
        longestOverWaitNanos.accumulateAndGet(tookNanos - maxWait.toNanos(), Math::max);
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
     * Runs the workers for about {@code load}, then checks the history.
     *
     * @param managers            one per simulated JVM, each on a store of its own
     * @param threadsPerManager   worker threads per manager
     * @param operator            the operator's manager, which forces releases and checks the keys after
     * @param load                how long the workers start new operations
     * @return what the run found
     */
    public Outcome run(List<LockManager> managers, int threadsPerManager, LockManager operator, Duration load)
            throws InterruptedException {
        long started = System.nanoTime();
        long deadline = started + load.toNanos();
        ExecutorService receivers = Executors.newCachedThreadPool(daemon("receiver"));
        List<Thread> workers = new ArrayList<>();
        for (int m = 0; m < managers.size(); m++) {
            for (int t = 0; t < threadsPerManager; t++) {
                String name = "m" + m + "t" + t;
                RandomWorker worker = new RandomWorker(name, managers.get(m), seed * 31 + workers.size(), this, receivers);
                workers.add(new Thread(() -> runWorker(worker, name, deadline), "random-" + name));
            }
        }
        Thread operatorThread = new Thread(() -> forceReleases(operator, deadline), "random-operator");
        workers.add(operatorThread);
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
        checkHoldsAreFreeAfter(operator);
        return outcome(Duration.ofNanos(System.nanoTime() - started));
    }

    private void runWorker(RandomWorker worker, String name, long deadline) {
        try {
            worker.runUntil(deadline, MAX_OPERATIONS_PER_THREAD);
        } catch (Exception | AssertionError failed) {
            problem(name + " failed: " + failed);
        }
    }

    private void forceReleases(LockManager operator, long deadline) {
        Random random = new Random(seed);
        while (System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(100 + random.nextInt(250)); // the operator's pace, not a wait for a condition
            } catch (InterruptedException interrupted) {
                return;
            }
            String key = keys.get(random.nextInt(keys.size()));
            long start = System.nanoTime();
            try {
                Optional<LockInfo> ended = operator.forceRelease(key);
                forced.add(new ForcedRelease(key, start, System.nanoTime(), ended.orElse(null),
                        ended.isPresent() ? "ended" : "free"));
            } catch (IllegalStateException refused) {
                // the JPA path cannot end a pessimistic holder's session; the native one refuses a row
                // that a transaction other than a published holder's locks at that instant
                forced.add(new ForcedRelease(key, start, System.nanoTime(), null, "refused: " + refused.getMessage()));
                if (!refused.getMessage().contains(key)) {
                    problem("forceRelease('" + key + "') refused without naming the key: " + refused);
                }
            } catch (LockException failed) {
                problem("forceRelease('" + key + "') threw " + failed);
            }
        }
    }

    /** Every key is free once the run is over, and its next token is higher than any recorded. */
    private void checkHoldsAreFreeAfter(LockManager operator) {
        for (String key : keys) {
            long highest = histories.get(key).sections().stream().mapToLong(CriticalSection::token).max().orElse(0);
            try (LockHandle after = operator.acquire(LockRequest.of(key).waitFor(Duration.ofSeconds(10)))) {
                if (after.token() <= highest) {
                    problem("'" + key + "' after the run: token " + after.token() + ", not above " + highest);
                }
            } catch (LockException failed) {
                problem("'" + key + "' is not free after the run: " + failed);
            }
        }
    }

    private Outcome outcome(Duration took) {
        List<String> silent = new ArrayList<>();
        int sections = 0;
        int told = 0;
        int signalled = 0;
        Set<String> forcedHolds = forced.stream().filter(ForcedRelease::endedToken)
                .map(f -> f.key() + "#" + f.ended().token()).collect(Collectors.toSet());
        Set<String> toldHolds = ConcurrentHashMap.newKeySet();
        for (Map.Entry<String, HistoryRecorder> key : histories.entrySet()) {
            List<CriticalSection> history = key.getValue().sections();
            HistoryChecker.Verdict verdict = HistoryChecker.check(history);
            silent.addAll(verdict.silent().stream().map(v -> key.getKey() + ": " + v).toList());
            sections += history.size();
            told += verdict.lossesSignalled();
            signalled += verdict.signalled().size();
            for (CriticalSection section : history) {
                String hold = key.getKey() + "#" + section.token();
                if (section.lossSignalled()) {
                    toldHolds.add(hold);
                    if (!forcedHolds.contains(hold) && !shortLeases.contains(hold)
                            && !endedUnnamedSessionDuring(key.getKey(), section)
                            && !endedNextWorkOfAReleasedSession(key.getKey(), section)) {
                        problem("told of a loss that no forced release and no short lease explains: " + section
                                + " on '" + key.getKey() + "': " + lossReasons.getOrDefault(hold, "invalid when it left"));
                    }
                }
            }
        }
        for (ForcedRelease release : forced) {
            if (release.endedToken() && !toldHolds.contains(release.key() + "#" + release.ended().token())) {
                problem("forceRelease('" + release.key() + "') reported ending " + release.ended()
                        + ", but no holder of that token was told it lost the lock");
            }
        }
        if (sections == 0) {
            problem("no critical section at all: the run checked nothing");
        }
        String summary = String.format("%d sections on %d keys in %d ms, %d not acquired, %d losses told"
                        + " (%d signalled overlaps), forced releases: %d ended, %d of free keys, %d refused;"
                        + " the longest answer came %d ms past its wait",
                sections, keys.size(), took.toMillis(), notAcquired.get(), told, signalled,
                forced.stream().filter(f -> f.ended() != null).count(),
                forced.stream().filter(f -> f.outcome().equals("free")).count(),
                forced.stream().filter(f -> f.outcome().startsWith("refused")).count(),
                TimeUnit.NANOSECONDS.toMillis(longestOverWaitNanos.get()));
        return new Outcome(seed, silent, List.copyOf(problems), summary, history());
    }

    /** PostgreSQL ends the session that row-locks a key even before its holder published its token. */
    private boolean endedUnnamedSessionDuring(String key, CriticalSection section) {
        return forced.stream().anyMatch(release -> release.endedUnnamed() && release.key().equals(key)
                && release.startNanos() <= section.exitNanos() && release.endNanos() >= section.enterNanos());
    }

    /**
     * The shape of {@link #endsSessionsAfterASeparateCheck()}: a forced release of another key
     * answered "free" because that key's pessimistic holder, of the lost holder's manager (its pool),
     * released itself during the forced release; the lost pessimistic section began after that
     * release, and its lock statement reached the server before the forced release's end. Its
     * entry may come a moment after that end, the lock statement's reply being on its way.
     */
    private boolean endedNextWorkOfAReleasedSession(String key, CriticalSection lost) {
        if (!endsSessionsAfterASeparateCheck || !pessimistic(lost)) {
            return false;
        }
        long replySlack = TimeUnit.SECONDS.toNanos(1);
        // one KILL ends one session: each forced release explains one loss at most
        Optional<ForcedRelease> explaining = forced.stream()
                .filter(release -> release.ended() == null && release.outcome().equals("free") && !release.key().equals(key))
                .filter(release -> !explainedLosses.contains(release))
                .filter(release -> histories.get(release.key()).sections().stream().anyMatch(released ->
                        pessimistic(released) && !released.lossSignalled()
                                && manager(released).equals(manager(lost))
                                && released.exitNanos() >= release.startNanos() - replySlack
                                && released.exitNanos() <= release.endNanos()
                                && lost.enterNanos() >= released.exitNanos()
                                && lost.enterNanos() <= release.endNanos() + replySlack))
                .findFirst();
        explaining.ifPresent(explainedLosses::add);
        return explaining.isPresent();
    }

    private static boolean pessimistic(CriticalSection section) {
        return section.holder().endsWith("P");
    }

    /** @return the manager of a worker's section: "m0" of "m0t1#5P" */
    private static String manager(CriticalSection section) {
        return section.holder().substring(0, section.holder().indexOf('t'));
    }

    private String history() {
        StringBuilder text = new StringBuilder();
        histories.forEach((key, recorder) -> {
            text.append("key ").append(key).append('\n');
            recorder.sections().stream().sorted(Comparator.comparingLong(CriticalSection::enterNanos))
                    .forEach(section -> text.append("  ").append(section.toLine()).append('\n'));
        });
        lossReasons.forEach((hold, reason) -> text.append("told ").append(hold).append(": ").append(reason).append('\n'));
        forced.forEach(release -> text.append("forced ").append(release.key()).append(' ').append(release.startNanos())
                .append(' ').append(release.endNanos()).append(' ').append(release.outcome()).append(' ')
                .append(release.ended() == null ? "" : release.ended()).append('\n'));
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
