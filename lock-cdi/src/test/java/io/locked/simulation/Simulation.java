package io.locked.simulation;

import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockInfo;
import io.locked.api.LockLostException;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockManagerClosedException;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.api.LockType;
import io.locked.contract.CriticalSection;
import io.locked.contract.ForcedRelease;
import io.locked.contract.HistoryChecker;
import io.locked.contract.MinimumHold;
import io.locked.contract.MinimumHoldChecker;
import io.locked.contract.PermitHistoryChecker;
import io.locked.contract.Places;
import io.locked.contract.ReadWriteHistoryChecker;
import io.locked.internal.DefaultLockManager;
import io.locked.internal.base.LockMetrics;
import io.locked.internal.base.SeededBug;
import io.locked.internal.lease.LeaseWatchdog;
import io.locked.internal.leadership.Candidacy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * One seeded run of the core against {@link SimulatedStore}: several lock managers stand for JVMs,
 * each with clients that take keys (exclusive in both modes with minimum holds and lock-delays, a
 * read/write lock in each mode, permits), hold them a while and release them, and, where calls wait, a
 * campaign for one role ({@link LeadershipTerms}), while the seed steps time forward, takes the store
 * down, ends sessions, holds statements up, steps the database's clock back and forward, pauses whole
 * JVMs past their leases, shuts one down and has operators force releases.
 *
 * <p>Deterministic: one actor runs at a time, every choice comes from the seed's random, and the
 * watchdogs' ticks run in virtual time ({@link VirtualScheduler}). Two ways, by {@link Settings#waits()}:
 * every call a try, each client a platform thread the simulation waits for after each call (any JDK);
 * or calls that wait, on virtual threads of a {@link World} of the simulation's own (Java 21+), where
 * statements take virtual time, waiters queue in their JVM and for the database's row locks, and the
 * simulation moves time on while they wait. The same seed gives the same run, and a failing one prints
 * its trace.
 *
 * <p>Judged by the independent checkers: {@link HistoryChecker} (no overlap that no holder was told of,
 * tokens rising), {@link ReadWriteHistoryChecker}, {@link PermitHistoryChecker} and
 * {@link MinimumHoldChecker}, {@link LeadershipTerms} as terms begin; and at the end no key stays held once
 * every lease ran out. A forward step of the database's clock has a stated window: a section whose lease it
 * cut short before its holder renewed ({@link SimulatedStore#cuts()}) counts its overlaps as told, and minimum
 * holds count on the database's clock.
 */
final class Simulation {
    private static final Duration SESSION_CHECK = Duration.ofSeconds(1);
    private static final Duration[] LEASES = {Duration.ofMillis(300), Duration.ofSeconds(1), Duration.ofSeconds(3)};
    private static final Duration[] WAITS = {Duration.ZERO, Duration.ZERO, Duration.ofMillis(300), Duration.ofSeconds(1),
        Duration.ofSeconds(3)};
    /** The read/write locks: one OPTIMISTIC, one PESSIMISTIC (its readers share a row lock). */
    private static final String READ_WRITE_KEY = "rw";
    private static final String PESSIMISTIC_READ_WRITE_KEY = "rwp";
    private static final String PERMITS_KEY = "permits";
    private static final int PERMITS = 2;
    /** How long a JVM of a seed that keeps leases keeps one after its release (virtual time; past the builder's bound, to meet more takes). */
    private static final Duration LEASE_KEEP = Duration.ofMillis(300);

    /**
     * @param jvms     lock managers
     * @param clients  clients per manager
     * @param keys     distinct keys of the exclusive lock
     * @param steps    choices per run
     * @param rates    the statements' faults
     * @param waits    whether calls may wait (on a {@link World}); else every call is a try
     * @param bug      the bug a negative control seeds in the core, or null
     * @param storeBug the bug a negative control seeds in the simulated store, or null
     * @param leadershipBug the bug a negative control seeds in the candidacies, or null
     */
    record Settings(int jvms, int clients, int keys, int steps, FaultRates rates, boolean waits, SeededBug bug,
                    SimulatedStore.StoreBug storeBug, Candidacy.SeededBug leadershipBug) {
        static final Settings TRIES = new Settings(3, 3, 2, 400, FaultRates.CI, false, null, null, null);
        static final Settings WAITING = new Settings(3, 3, 2, 400, FaultRates.CI, true, null, null, null);

        Settings withBug(SeededBug seeded) {
            return new Settings(jvms, clients, keys, steps, rates, waits, seeded, null, null);
        }

        Settings withBug(SimulatedStore.StoreBug seeded) {
            return new Settings(jvms, clients, keys, steps, rates, waits, null, seeded, null);
        }

        Settings withBug(Candidacy.SeededBug seeded) {
            return new Settings(jvms, clients, keys, steps, rates, waits, null, null, seeded);
        }

        Settings withRates(FaultRates faults) {
            return new Settings(jvms, clients, keys, steps, faults, waits, bug, storeBug, leadershipBug);
        }
    }

    /**
     * @param seed       the run's seed
     * @param violations what the checkers found; empty when the run is correct
     * @param sections   critical sections entered: exclusive, read/write and permits
     * @param signalled  overlaps whose holder was told of its loss (allowed)
     * @param virtualNanos how far virtual time went
     * @param trace      the end of the run, in virtual time
     * @param mostReadersAtOnce the most readers inside the OPTIMISTIC read/write lock at once
     * @param mostPessimisticReadersAtOnce the most readers inside the PESSIMISTIC one at once
     * @param mostPermitsAtOnce the most holders of the permits at once
     * @param waitedIn   acquisitions that waited and got the key
     * @param terms      leadership terms granted
     * @param rowHandOvers row locks passed from holder to holder in a JVM
     * @param leaseHandOvers leases passed on in one statement: to a local waiter, or from a lease kept after its release
     */
    record Outcome(long seed, List<String> violations, int sections, int signalled, long virtualNanos, String trace,
                   int mostReadersAtOnce, int mostPessimisticReadersAtOnce, int mostPermitsAtOnce, int waitedIn, int terms,
                   int rowHandOvers, int leaseHandOvers) {
        boolean failed() {
            return !violations.isEmpty();
        }

        String report() {
            return "seed " + seed + " (replay: -Dlocked.simulation.seed=" + seed + "): " + String.join("\n", violations)
                    + "\n--- trace\n" + trace;
        }
    }

    private final Settings settings;
    private final Random random;
    private final VirtualClock clock;
    private final Trace trace;
    private final SimulatedStore store;
    /** Whether the JVMs keep a released lease for their next take of its key (LockManagerBuilder.keepLeasesFor). */
    private final boolean keepsLeases;
    private final World world;
    private final List<Jvm> jvms = new ArrayList<>();
    private final Map<String, List<CriticalSection>> sections = new HashMap<>();
    private final Map<String, List<ReadWriteHistoryChecker.Access>> readWrite = new TreeMap<>(Map.of(
            READ_WRITE_KEY, new ArrayList<>(), PESSIMISTIC_READ_WRITE_KEY, new ArrayList<>()));
    private final List<PermitHistoryChecker.PermitSection> permitSections = new ArrayList<>();
    private final List<ForcedRelease> forced = new ArrayList<>();
    private final List<MinimumHold> holds = new ArrayList<>();
    private final List<ForwardStep> forwardSteps = new ArrayList<>();
    private final List<Pause> pauses = new ArrayList<>();
    /** The lease the JVMs campaign with. */
    private Duration leaderLease = Duration.ZERO;
    /** Sections not told of a loss, by identity, with their row: a forward step may have cut its lease (judged at the end). */
    private final Map<CriticalSection, HeldRow> mayBeCut = new IdentityHashMap<>();
    /** The role every JVM campaigns for where calls wait (a campaign waits); null where every call is a try. */
    private final LeadershipTerms leadership;
    private final List<String> violations = new ArrayList<>();
    private int waitedIn;

    private Simulation(long seed, Settings settings) {
        this.settings = settings;
        this.random = new Random(seed);
        this.clock = new VirtualClock(random);
        this.trace = new Trace(clock);
        int batchSize = random.nextBoolean() ? 1 : 1 + random.nextInt(8);
        // odd seeds pass row locks from holder to holder in a JVM, even ones release them: read off the seed, not
        // drawn, so that the runs of even seeds go as they went before hand-overs of row locks were written
        boolean handsOver = seed % 2 == 1;
        // one seed in four of those keeps released leases: the others go as they went before leases were kept
        this.keepsLeases = seed % 4 == 3;
        this.store = new SimulatedStore(clock, random, settings.rates(), trace, settings.storeBug(), batchSize, handsOver);
        this.world = settings.waits() ? new World(clock, this::pausedUntil) : null;
        this.leadership = settings.waits() ? new LeadershipTerms(trace, violations, term -> store.cuts().stream()
                .anyMatch(cut -> cut.row().equals(LeadershipTerms.ROLE) && cut.atNanos() - store.drawnAtNanos(term) >= 0),
                jvm -> pauses.stream().anyMatch(pause -> pause.jvm().equals(jvm)
                        && pause.untilNanos() - (clock.nanoTime() - leaderLease.toNanos()) > 0),
                settings.leadershipBug()) : null;
        clock.waitIn(world);
        store.waitIn(world);
        trace.add("renewals in batches of up to " + batchSize + (handsOver ? ", row locks handed over" : "")
                + (keepsLeases ? ", leases kept " + LEASE_KEEP.toMillis() + " ms after their release" : "")
                + (settings.waits() ? ", calls that wait" : ", tries"));
    }

    private final class Jvm {
        final String name;
        final VirtualScheduler scheduler = new VirtualScheduler(clock);
        final DirectCalls calls;
        final JvmTime time;
        final DefaultLockManager locks;
        final List<SimulatedClient> clients = new ArrayList<>();
        final SimulatedClient operator;
        long pausedUntilNanos;
        /** When its close began (its drain), or {@link Long#MAX_VALUE} while it runs. */
        long closeBeganNanos = Long.MAX_VALUE;

        Jvm(int index) {
            this.name = "jvm" + index;
            this.calls = new DirectCalls(world, name + "-call");
            this.time = new JvmTime(clock, name);
            this.locks = new DefaultLockManager(store, time,
                    new LeaseWatchdog(scheduler, clock::nanoTime, calls, store, clock),
                    SESSION_CHECK, LockMetrics.NONE, settings.bug());
            if (keepsLeases) {
                locks.passKeysOn(LockManagerBuilder.DEFAULT_ROW_HAND_OVER_RUN, LEASE_KEEP);
            }
            for (int c = 0; c < settings.clients(); c++) {
                clients.add(new SimulatedClient(name + "/c" + c, name, world));
            }
            this.operator = new SimulatedClient(name + "/operator", name, world);
        }

        boolean paused() {
            return clock.nanoTime() < pausedUntilNanos;
        }

        /** @return when its next tick may run: never while it is paused */
        long nextTick() {
            long due = scheduler.nextDue();
            return due == Long.MAX_VALUE ? due : Math.max(due, pausedUntilNanos);
        }

        Stream<SimulatedClient> everyone() {
            return Stream.concat(clients.stream(), Stream.of(operator));
        }
    }

    /** A thread of the world sleeps through its JVM's pause: its name begins with the JVM's. */
    private long pausedUntil(Thread thread) {
        String name = thread.getName().replace("simulated-", "");
        for (Jvm jvm : jvms) {
            if (name.startsWith(jvm.name + "/") || name.startsWith(jvm.name + "-")) {
                return jvm.pausedUntilNanos;
            }
        }
        return 0;
    }

    /** Runs one seed. */
    static Outcome run(long seed, Settings settings) {
        // the core logs each simulated failure; the trace tells them
        java.util.logging.Logger quiet = java.util.logging.Logger.getLogger("io.locked");
        java.util.logging.Level level = quiet.getLevel();
        quiet.setLevel(java.util.logging.Level.OFF);
        try {
            return runQuietly(seed, settings);
        } finally {
            quiet.setLevel(level);
        }
    }

    private static Outcome runQuietly(long seed, Settings settings) {
        Simulation simulation = new Simulation(seed, settings);
        try {
            simulation.runAll();
        } catch (Exception | AssertionError failure) {
            simulation.violations.add("the run failed: " + failure);
            simulation.trace.add("failure: " + stackOf(failure));
        } finally {
            simulation.close();
        }
        int signalled = simulation.sections.values().stream()
                .mapToInt(keySections -> HistoryChecker.check(keySections).signalled().size()).sum();
        int entered = simulation.sections.values().stream().mapToInt(List::size).sum()
                + simulation.readWrite.values().stream().mapToInt(List::size).sum() + simulation.permitSections.size();
        Map<String, Integer> mostReaders = new HashMap<>();
        simulation.readWrite.forEach((key, accesses) -> mostReaders.put(key, ReadWriteHistoryChecker.check(accesses).mostReadersAtOnce()));
        signalled += simulation.readWrite.values().stream()
                .mapToInt(accesses -> ReadWriteHistoryChecker.check(accesses).signalled().size()).sum();
        PermitHistoryChecker.Verdict permits = PermitHistoryChecker.check(simulation.permitSections, PERMITS);
        signalled += permits.signalled().size();
        return new Outcome(seed, simulation.violations, entered, signalled, simulation.clock.nanoTime(),
                simulation.trace.tail(), mostReaders.get(READ_WRITE_KEY), mostReaders.get(PESSIMISTIC_READ_WRITE_KEY),
                permits.mostInsideAtOnce(), simulation.waitedIn,
                simulation.leadership == null ? 0 : simulation.leadership.termsGranted(), simulation.store.rowHandOvers(),
                simulation.store.leaseHandOvers());
    }

    private static String stackOf(Throwable failure) {
        java.io.StringWriter text = new java.io.StringWriter();
        failure.printStackTrace(new java.io.PrintWriter(text));
        return text.toString();
    }

    private void runAll() {
        for (int j = 0; j < settings.jvms(); j++) {
            jvms.add(new Jvm(j));
        }
        if (leadership != null) {
            leaderLease = LEASES[1 + random.nextInt(LEASES.length - 1)];
            trace.add("every JVM campaigns for '" + LeadershipTerms.ROLE + "', lease " + leaderLease.toMillis() + " ms");
            jvms.forEach(jvm -> leadership.campaign(jvm.name, jvm.locks, jvm.time, leaderLease));
        }
        for (int step = 0; step < settings.steps(); step++) {
            int choice = random.nextInt(100);
            if (choice < 55) {
                act();
            } else if (choice < 85) {
                advance((long) (random.nextDouble() * 1_500_000_000L));
            } else {
                fault(choice);
            }
        }
        for (Jvm jvm : jvms) {
            jvm.pausedUntilNanos = 0;
        }
        settle();
        if (leadership != null) {
            // a candidacy's close waits for its campaign to end: on a thread of the world
            jvms.forEach(jvm -> jvm.operator.run(() -> leadership.of(jvm.name).close()));
            settle();
        }
        // every lease, hold, lock-delay and held-up statement runs out
        advance(10_000_000_000L);
        advance(Math.max(0, store.lastLeaseEnd() - clock.nanoTime()) + 1);
        store.landDue();
        advance(Math.max(0, store.lastLeaseEnd() - clock.nanoTime()) + 1);
        judge();
    }

    /** Lets every waiting call end, and every holder release. */
    private void settle() {
        for (int round = 0; round < 1_000; round++) {
            List<SimulatedClient> all = jvms.stream().flatMap(Jvm::everyone).toList();
            if (all.stream().noneMatch(client -> client.busy() || client.held != null)) {
                return;
            }
            for (SimulatedClient client : all) {
                if (!client.busy() && client.held != null) {
                    release(client);
                }
            }
            advance(100_000_000L);
        }
        violations.add("calls still waiting 100 virtual seconds after the run: "
                + jvms.stream().flatMap(Jvm::everyone).filter(SimulatedClient::busy).map(client -> client.name).toList());
    }

    private void judge() {
        List<SimulatedStore.LeaseCut> cuts = store.cuts();
        sections.replaceAll((key, keySections) -> keySections.stream()
                .map(section -> withTheStatedWindow(section, cuts)).map(section -> keptThroughAForcedRelease(key, section)).toList());
        readWrite.values().forEach(accesses -> accesses.replaceAll(access -> new ReadWriteHistoryChecker.Access(
                access.writer(), access.row(), withTheStatedWindow(access.section(), cuts))));
        permitSections.replaceAll(permit -> new PermitHistoryChecker.PermitSection(permit.slot(),
                withTheStatedWindow(permit.section(), cuts)));
        for (Jvm jvm : jvms) {
            jvm.calls.escaped().forEach(failure -> violations.add(jvm.name + ": a watchdog call threw " + failure));
        }
        for (Jvm jvm : jvms) {
            // what a JVM keeps per key goes with the key's last user: a group left to nobody, a queue, a scope would stay
            if (jvm.closeBeganNanos == Long.MAX_VALUE && jvm.locks.localKeyState() > 0) {
                violations.add(jvm.name + " keeps " + jvm.locks.localKeyState() + " entries of per-key state after every"
                        + " holder released");
            }
        }
        List<String> stillHeld = store.keysHeld();
        if (!stillHeld.isEmpty()) {
            violations.add("held after every holder released and every lease ran out: " + stillHeld);
        }
        for (Map.Entry<String, List<CriticalSection>> key : sections.entrySet()) {
            for (String silent : HistoryChecker.check(key.getValue()).silent()) {
                violations.add("'" + key.getKey() + "': " + silent);
            }
        }
        readWrite.forEach((key, accesses) -> ReadWriteHistoryChecker.check(accesses).silent()
                .forEach(silent -> violations.add("'" + key + "': " + silent)));
        PermitHistoryChecker.check(permitSections, PERMITS).silent()
                .forEach(silent -> violations.add("'" + PERMITS_KEY + "': " + silent));
        if (leadership != null) {
            leadership.judgeTheEnd();
        }
        violations.addAll(MinimumHoldChecker.violations(holds.stream().map(this::onTheDatabasesClock).toList(),
                key -> sections.getOrDefault(key, List.of()), forced));
    }

    /** A JVM's pause, until when it lasts. */
    private record Pause(String jvm, long untilNanos) {
    }

    /** The row a section held, taken no earlier than its holder asked. */
    private record HeldRow(String row, long askedNanos) {
    }

    /** A step of the database's clock forward, at a moment of virtual time. */
    private record ForwardStep(long atNanos, long nanos) {
    }

    /**
     * The section as judged, where a forward step cut the lease of its row short and the lease ran out while its
     * holder was in, before a renewal ({@link SimulatedStore#cuts()}): the stated window
     * ({@code docs/guarantees.md#database-clock-steps}) in which the holder is not told before its next renewal.
     * Its overlaps count as told; the other checks (tokens, holds) stand.
     */
    private CriticalSection withTheStatedWindow(CriticalSection section, List<SimulatedStore.LeaseCut> cuts) {
        HeldRow held = mayBeCut.get(section);
        boolean cut = held != null && cuts.stream().anyMatch(found -> found.row().equals(held.row())
                && found.atNanos() - held.askedNanos() >= 0 && found.atNanos() - section.exitNanos() <= 0);
        return cut ? new CriticalSection(section.holder(), section.token(), section.enterNanos(), section.exitNanos(), true)
                : section;
    }

    /**
     * Where leases are kept after their release, the stated cost ({@code LockManagerBuilder.keepLeasesFor}): a holder
     * whose lease an operator ended is not told at its release, which sends nothing. Its overlaps count as told when
     * a forced release ended its token (or may have: a reply lost); every other loss must still be told.
     */
    private CriticalSection keptThroughAForcedRelease(String key, CriticalSection section) {
        boolean forcedOut = keepsLeases && !section.lossSignalled() && forced.stream().anyMatch(release ->
                release.key().equals(key) && release.outcomeUnknown() || release.ended(key, section.token()));
        return forcedOut ? new CriticalSection(section.holder(), section.token(), section.enterNanos(), section.exitNanos(), true)
                : section;
    }

    /**
     * A minimum hold and a lock-delay count on the database's clock: a forward step while they last ends them
     * sooner by the step, as it ends a lease ({@code docs/guarantees.md#database-clock-steps}). The overlaps such a
     * step causes are judged as any other: each must be told to its holder.
     */
    private MinimumHold onTheDatabasesClock(MinimumHold hold) {
        long lasts = Math.max(hold.holdNanos(), hold.leaseNanos() + hold.delayNanos());
        long stepped = forwardSteps.stream().filter(step -> step.atNanos() - hold.askedNanos() >= 0
                && step.atNanos() - (hold.askedNanos() + lasts) < 0).mapToLong(ForwardStep::nanos).sum();
        if (stepped == 0) {
            return hold;
        }
        return new MinimumHold(hold.key(), hold.holder(), hold.token(), hold.askedNanos(), hold.enteredNanos(),
                hold.holdNanos() - stepped, hold.closedNanos(), hold.lossReason(), hold.leaseNanos(),
                hold.delayNanos() == 0 ? 0 : hold.delayNanos() - stepped);
    }

    private void act() {
        List<SimulatedClient> idle = jvms.stream().filter(jvm -> !jvm.paused()).flatMap(jvm -> jvm.clients.stream())
                .filter(client -> !client.busy()).toList();
        if (idle.isEmpty()) {
            return;
        }
        SimulatedClient client = idle.get(random.nextInt(idle.size()));
        if (client.held != null && isExclusive(client.request) && random.nextInt(4) == 0) {
            reenter(client);
        } else if (client.held != null) {
            release(client);
        } else {
            take(client, request());
        }
    }

    private boolean isExclusive(LockRequest request) {
        return !readWrite.containsKey(request.key()) && !request.key().equals(PERMITS_KEY);
    }

    /** A holder enters its own key again and leaves it: never refused, not even while its manager drains. */
    private void reenter(SimulatedClient client) {
        Jvm jvm = jvmOf(client);
        client.run(() -> {
            if (!client.held.isValid()) {
                // a lost hold is never revived: entering its key again is a new acquisition, not a re-entry
                return;
            }
            boolean draining = jvm.closeBeganNanos <= clock.nanoTime();
            try {
                Optional<LockHandle> again = client.request.maxWait().isZero() ? jvm.locks.tryAcquire(client.request)
                        : Optional.of(jvm.locks.acquire(client.request));
                if (again.isEmpty()) {
                    violations.add(client.name + "'s re-entry of " + client.request.key() + " was refused"
                            + (draining ? " while its manager drained" : ""));
                    return;
                }
                again.get().close();
                trace.add(client.name + " entered " + client.request.key() + " again and left it");
            } catch (LockLostException lost) {
                trace.add(client.name + " re-entered a hold it had lost: " + lost.getMessage()); // told
            } catch (LockException | LockManagerClosedException refused) {
                violations.add(client.name + "'s re-entry of " + client.request.key() + " failed"
                        + (draining ? " while its manager drained" : "") + ": " + refused);
            }
        });
    }

    private Jvm jvmOf(SimulatedClient client) {
        return jvms.stream().filter(jvm -> jvm.name.equals(client.jvm)).findFirst().orElseThrow();
    }

    private void take(SimulatedClient client, LockRequest request) {
        DefaultLockManager locks = jvmOf(client).locks;
        client.run(() -> {
            client.askedNanos = clock.nanoTime();
            trace.add(client.name + " asks for " + describe(request));
            try {
                Optional<LockHandle> handle = request.maxWait().isZero() ? locks.tryAcquire(request)
                        : Optional.of(locks.acquire(request));
                if (handle.isEmpty()) {
                    trace.add(client.name + " found " + request.key() + " busy");
                    return;
                }
                client.held = handle.get();
                client.request = request;
                client.enteredNanos = clock.nanoTime();
                if (client.enteredNanos > jvmOf(client).closeBeganNanos) {
                    violations.add(client.name + " was granted " + request.key() + " token " + client.held.token()
                            + " after its manager's close began");
                }
                if (!request.maxWait().isZero()) {
                    waitedIn++;
                }
                trace.add(client.name + " holds " + request.key() + " token " + client.held.token());
            } catch (LockNotAcquiredException waitedInVain) {
                trace.add(client.name + " waited for " + request.key() + " in vain");
            } catch (LockManagerClosedException refused) {
                trace.add(client.name + " refused: " + refused.getMessage());
            } catch (LockException failed) {
                trace.add(client.name + " failed: " + failed.getMessage());
            }
        });
    }

    private LockRequest request() {
        int form = random.nextInt(4);
        LockMode mode = random.nextBoolean() ? LockMode.PESSIMISTIC : LockMode.OPTIMISTIC;
        Duration lease = LEASES[random.nextInt(LEASES.length)];
        // the read/write lock's waits are the JVM's monitor waits, which the world cannot order: tries only
        Duration wait = settings.waits() ? WAITS[random.nextInt(WAITS.length)] : Duration.ZERO;
        if (form == 0) {
            // a PESSIMISTIC group's readers confirm its session on a monitor, which the world cannot order: tries only
            LockRequest request = random.nextBoolean() || settings.waits()
                    ? LockRequest.of(READ_WRITE_KEY).mode(LockMode.OPTIMISTIC).maxWait(Duration.ZERO).lease(lease)
                    : LockRequest.of(PESSIMISTIC_READ_WRITE_KEY).mode(LockMode.PESSIMISTIC).maxWait(Duration.ZERO).lease(lease);
            return random.nextInt(3) == 0 ? request.write() : request.read();
        }
        if (form == 1) {
            return LockRequest.of(PERMITS_KEY).mode(mode).maxWait(wait).lease(lease).permits(PERMITS);
        }
        String key = "key" + random.nextInt(settings.keys());
        LockRequest request = LockRequest.of(key).mode(mode).maxWait(wait).lease(lease);
        if (random.nextInt(3) == 0) {
            request = request.holdAtLeast(Duration.ofMillis(100 + random.nextInt(3_000)));
        }
        if (mode == LockMode.OPTIMISTIC && random.nextInt(4) == 0) {
            request = request.lockDelay(Duration.ofMillis(100 + random.nextInt(1_000)));
        }
        return request;
    }

    private String describe(LockRequest request) {
        return request.key() + " " + request.mode() + (request.permits() > 1 ? " " + request.permits() + " permits" : "")
                + (readWrite.containsKey(request.key()) ? " " + request.type() : "") + " lease " + request.lease().toMillis() + " ms"
                + (request.maxWait().isZero() ? "" : " wait " + request.maxWait().toMillis() + " ms")
                + (request.holdAtLeast().isZero() ? "" : " hold " + request.holdAtLeast().toMillis() + " ms")
                + (request.lockDelay().isZero() ? "" : " delay " + request.lockDelay().toMillis() + " ms");
    }

    private void release(SimulatedClient client) {
        client.run(() -> {
            LockHandle handle = client.held;
            long exitNanos = clock.nanoTime();
            boolean told = !handle.isValid();
            String loss = told ? "invalid at its exit" : null;
            try {
                handle.close();
                trace.add(client.name + " released " + handle.key() + " token " + handle.token() + (told ? " (told: invalid)" : ""));
            } catch (LockLostException lostAtClose) {
                told = true;
                // a release that failed as well could not leave a minimum hold: the holder hears that failure with the loss
                loss = lostAtClose.getSuppressed().length > 0 ? "its release failed too: " + lostAtClose.getSuppressed()[0]
                        : lostAtClose.getMessage();
                trace.add(client.name + " released " + handle.key() + " and heard it lost: " + loss);
            } catch (LockException releaseFailed) {
                // told that the release may not have happened: its row stays its own until its lease or session ends
                told = true;
                loss = releaseFailed.getMessage();
                trace.add(client.name + " release of " + handle.key() + " failed: " + loss);
            }
            client.held = null;
            CriticalSection section = new CriticalSection(client.name, handle.token(), client.enteredNanos, exitNanos, told);
            if (!told) {
                // judged at the end: the statement that finds a cut lease may come after the exit (a kept slot's release)
                mayBeCut.put(section, new HeldRow(Places.of(handle), client.askedNanos));
            }
            record(client, handle, section, loss);
        });
    }

    private void record(SimulatedClient client, LockHandle handle, CriticalSection section, String loss) {
        LockRequest request = client.request;
        if (readWrite.containsKey(request.key())) {
            readWrite.get(request.key()).add(new ReadWriteHistoryChecker.Access(request.type() == LockType.WRITE,
                    Places.of(handle), section));
        } else if (request.key().equals(PERMITS_KEY)) {
            permitSections.add(new PermitHistoryChecker.PermitSection(Places.of(handle), section));
        } else {
            sections.computeIfAbsent(handle.key(), key -> new ArrayList<>()).add(section);
            if (!request.holdAtLeast().isZero()) {
                holds.add(new MinimumHold(handle.key(), client.name, handle.token(), client.askedNanos, client.enteredNanos,
                        request.holdAtLeast().toNanos(), clock.nanoTime(), loss,
                        request.mode() == LockMode.OPTIMISTIC ? request.lease().toNanos() : 0, request.lockDelay().toNanos()));
            }
        }
    }

    /**
     * Moves time on, running each tick, landing each held-up statement and waking each waiting thread when
     * it is due, in time order.
     */
    private void advance(long nanos) {
        long target = clock.nanoTime() + nanos;
        while (true) {
            Jvm next = null;
            for (Jvm jvm : jvms) {
                if (next == null || jvm.nextTick() < next.nextTick()) {
                    next = jvm;
                }
            }
            long tick = next == null ? Long.MAX_VALUE : next.nextTick();
            long landing = store.nextLanding();
            long wake = world == null ? Long.MAX_VALUE : world.nextWake();
            long due = Math.min(tick, Math.min(landing, wake));
            if (due > target) {
                break;
            }
            clock.advanceTo(due);
            if (landing == due) {
                store.landDue();
            } else if (wake == due) {
                world.wakeDue();
            } else {
                next.scheduler.runNextDue();
            }
            quiet();
        }
        clock.advanceTo(target);
    }

    /** Runs the world's threads until all wait again, and fails on what a client's call did not expect. */
    private void quiet() {
        if (world != null) {
            world.runUntilQuiet();
            jvms.stream().flatMap(Jvm::everyone).forEach(SimulatedClient::checkFailure);
        }
    }

    private void fault(int choice) {
        switch (choice % 6) {
            case 5 -> shutDown();
            case 0 -> {
                long down = (long) (random.nextDouble() * 4_000_000_000L);
                trace.add("FAULT the store goes down for " + Trace.millis(down));
                store.downFor(down);
            }
            case 1 -> trace.add("FAULT a session ends: " + store.endASession());
            case 2 -> {
                long step = (long) (random.nextDouble() * 2_000_000_000L);
                if (random.nextBoolean()) {
                    trace.add("FAULT the database clock steps back " + Trace.millis(step));
                    store.stepClockBack(step);
                } else {
                    Set<String> ended = store.stepClockForward(step);
                    trace.add("FAULT the database clock steps forward " + Trace.millis(step) + ", ending the leases of " + ended);
                    forwardSteps.add(new ForwardStep(clock.nanoTime(), step));
                }
            }
            case 3 -> {
                Jvm jvm = jvms.get(random.nextInt(jvms.size()));
                long pause = (long) (random.nextDouble() * 5_000_000_000L);
                trace.add("FAULT " + jvm.name + " pauses for " + Trace.millis(pause));
                jvm.pausedUntilNanos = Math.max(jvm.pausedUntilNanos, clock.nanoTime() + pause);
                pauses.add(new Pause(jvm.name, jvm.pausedUntilNanos));
            }
            default -> forceRelease();
        }
        quiet();
    }

    /**
     * One JVM of the run shuts down, once: its manager stops granting, lets its holders finish for up to a drain
     * bound (none where calls never wait: the drain would wait for the next call), then closes.
     */
    private void shutDown() {
        if (jvms.stream().anyMatch(jvm -> jvm.closeBeganNanos != Long.MAX_VALUE) || random.nextInt(3) != 0) {
            return;
        }
        Jvm jvm = jvms.get(random.nextInt(jvms.size()));
        if (jvm.paused() || jvm.operator.busy()) {
            return;
        }
        Duration drain = settings.waits() ? Duration.ofMillis(random.nextInt(3_000)) : Duration.ZERO;
        jvm.operator.run(() -> {
            jvm.closeBeganNanos = clock.nanoTime();
            trace.add("FAULT " + jvm.name + " shuts down, draining for up to " + drain.toMillis() + " ms");
            jvm.locks.drainFor(drain);
            jvm.locks.close();
            trace.add(jvm.name + " closed");
        });
    }

    /** An operator of an awake JVM ends a key's hold: allowed to overlap its holder, who must hear of it. */
    private void forceRelease() {
        List<Jvm> awake = jvms.stream().filter(jvm -> !jvm.paused() && !jvm.operator.busy()).toList();
        if (awake.isEmpty()) {
            return;
        }
        Jvm jvm = awake.get(random.nextInt(awake.size()));
        String key = "key" + random.nextInt(settings.keys());
        jvm.operator.run(() -> {
            long start = clock.nanoTime();
            try {
                Optional<LockInfo> ended = jvm.locks.forceRelease(key);
                trace.add("FAULT an operator of " + jvm.name + " forced the release of " + key + ": "
                        + ended.map(info -> "token " + info.token()).orElse("it was free"));
                forced.add(new ForcedRelease(key, start, clock.nanoTime(), ended.orElse(null),
                        ended.isPresent() ? "ended" : "free"));
            } catch (LockException failed) {
                // a reply lost after the statement ran: the release may have happened
                trace.add("FAULT an operator of " + jvm.name + " could not force the release of " + key + ": "
                        + failed.getMessage());
                forced.add(new ForcedRelease(key, start, clock.nanoTime(), null, "unknown: " + failed.getMessage()));
            }
        });
    }

    private void close() {
        for (Jvm jvm : jvms) {
            try {
                jvm.locks.close();
            } catch (RuntimeException ignored) {
                // closing releases nothing here: every client released before
            }
            jvm.everyone().forEach(SimulatedClient::stop);
        }
        if (world != null) {
            world.runUntilQuiet();
        }
    }
}
