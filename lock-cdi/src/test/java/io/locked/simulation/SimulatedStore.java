package io.locked.simulation;

import io.locked.api.LockMode;
import io.locked.api.LockStoreUnavailableException;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRowState;
import io.locked.spi.PessimisticHold;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The database as the simulation sees it: one row per key, leases on the database's own clock, row
 * locks held by sessions, exclusive or shared ({@link PessimisticHold#lockAnotherRow}), one token counter. Each statement may meet a fault the seed chose: the store
 * down (the statement never ran), the reply lost (it ran, the client hears a failure), or the statement
 * held up past its client's timeout and landing later. The assumptions, each tied to a real database's
 * test, are in {@code docs/testing.md#the-deterministic-simulation}.
 *
 * <p>Called by one thread at a time (the simulation runs one actor at a time); synchronized for
 * visibility only.
 */
final class SimulatedStore implements LockRepository {
    private final VirtualClock clock;
    private final Random random;
    private final FaultRates rates;
    private final Trace trace;
    private final StoreBug bug;
    /** How many leases one renewal statement renews: 1 renews each alone, more gathers them in batches. */
    private final int batchSize;
    private final Map<String, Row> rows = new HashMap<>();
    private final List<LateStatement> late = new ArrayList<>();
    private final List<Session> sessions = new ArrayList<>();
    private final List<LeaseCut> cuts = new ArrayList<>();
    /** When each token was drawn, in virtual time. */
    private final Map<Long, Long> tokensDrawnAt = new HashMap<>();
    /** Threads whose statement waits for a key's row lock. */
    private final Map<String, List<Thread>> rowLockWaiters = new HashMap<>();
    private final boolean handsOver;
    private int rowHandOvers;
    private int leaseHandOvers;
    /** Clock tokens: a counter that no rollback lowers. */
    private long lastToken;
    /** The database's clock minus the JVMs' monotonic clock; a step moves it. */
    private long clockOffsetNanos;
    private long downUntilNanos;
    private int lateCount;
    /** Where statements take their time and wait for row locks; null: they take it at once and never wait. */
    private World world;

    /** Mistakes a real store could make, seeded into the simulated one for the negative controls. */
    enum StoreBug {
        /** A renewal sets the lease to end a lease from now, even where that is earlier: one that lands after a
         * release which left a minimum hold cuts the hold short (the real stores take the later end:
         * {@code MinimumHoldContract}). */
        RENEWAL_SHORTENS_A_HOLD,
        /** An exclusive row lock is granted beside other sessions' shared ones: a pessimistic writer beside the readers. */
        EXCLUSIVE_BESIDE_SHARED
    }

    /**
     * @param handsOver whether pessimistic holds pass their row lock to the next holder of their JVM
     */
    SimulatedStore(VirtualClock clock, Random random, FaultRates rates, Trace trace, StoreBug bug, int batchSize,
                   boolean handsOver) {
        this.handsOver = handsOver;
        this.clock = clock;
        this.random = random;
        this.rates = rates;
        this.trace = trace;
        this.bug = bug;
        this.batchSize = batchSize;
    }

    private static final class Row {
        String owner;
        long token;
        long version;
        long expiresAtNanos;
        long acquiredAtNanos;
        Session rowLock;
        /** The sessions that hold a shared lock on it ({@link PessimisticHold#lockAnotherRow}). */
        final Set<Session> sharedBy = new HashSet<>();
        /** Whether the table has the row: written by an acquisition, or created ({@link #createRow}). */
        boolean exists;
        /** Its lease was live when the clock stepped forward, and no renewal, hand-over or release came since. */
        boolean steppedOver;
        /** When the last forward step over its lease came. */
        long steppedAtNanos;
    }

    /**
     * A lease that a forward step shortened and that ran out before its holder renewed it, found by the next
     * statement on its row, with the moment it ran out in virtual time.
     */
    record LeaseCut(String row, long atNanos) {
    }

    /** A connection's session: it holds a row lock, and the other rows it locked, until it commits or ends. */
    private static final class Session {
        final String key;
        /** The rows it locked beside its own. */
        final Set<String> otherRows = new TreeSet<>();
        boolean ended;

        Session(String key) {
            this.key = key;
        }
    }

    /** @return how many row locks were passed from holder to holder */
    synchronized int rowHandOvers() {
        return rowHandOvers;
    }

    /** @return leases passed on in one statement: to a local waiter, or (in tries, all of them) from a lease kept after its release */
    synchronized int leaseHandOvers() {
        return leaseHandOvers;
    }

    void waitIn(World waits) {
        this.world = waits;
    }

    /** A statement its client gave up on, which the database runs later all the same. */
    record LateStatement(long landsAtNanos, int order, String what, Runnable effect) {
    }

    /** The core names a holder by process and thread; the trace by the simulated client alone, the same in every run. */
    private static String who(String holder) {
        int client = holder.indexOf("simulated-");
        return client < 0 ? holder : holder.substring(client + "simulated-".length());
    }

    private long dbNow() {
        return clock.nanoTime() + clockOffsetNanos;
    }

    /** Every statement finds its row here: a lease that a forward step cut short and that ran out since is noted. */
    private Row row(String key) {
        Row row = rows.computeIfAbsent(key, k -> new Row());
        if (row.steppedOver && row.owner != null && !leaseLive(row)) {
            // it ran out when the clock passed its end: at the step itself where the step jumped past it
            long ranOut = Math.max(row.expiresAtNanos - clockOffsetNanos, row.steppedAtNanos);
            cuts.add(new LeaseCut(key, ranOut));
            trace.add("found: a forward step cut " + key + "'s lease token " + row.token + " short; it ran out at "
                    + Trace.millis(ranOut));
            row.steppedOver = false;
        }
        return row;
    }

    private boolean leaseLive(Row row) {
        return row.owner != null && dbNow() - row.expiresAtNanos < 0;
    }

    /** @return whether a live session holds a lock on the row, exclusive or shared */
    private boolean rowLocked(Row row) {
        return row.rowLock != null && !row.rowLock.ended || row.sharedBy.stream().anyMatch(session -> !session.ended);
    }

    /** @return whether a live session other than the one given holds a lock on the row that the asked one conflicts with */
    private boolean lockedAgainst(Row row, Session asking, boolean shared) {
        boolean exclusive = row.rowLock != null && !row.rowLock.ended && row.rowLock != asking;
        return exclusive || !shared && bug != StoreBug.EXCLUSIVE_BESIDE_SHARED
                && row.sharedBy.stream().anyMatch(session -> !session.ended && session != asking);
    }

    @Override
    public Optional<String> noSharedRowLocks() {
        return Optional.empty();
    }

    @Override
    public boolean createRow(String key) {
        return statement("create the row " + key, key, false, () -> {
            row(key).exists = true;
            return true;
        });
    }

    // by owner and token, as the SPI asks
    private static boolean holds(Row row, Lease lease) {
        return lease.owner().equals(row.owner) && row.token == lease.token();
    }

    /**
     * Runs a statement through the faults the seed chooses for it.
     *
     * @param canLandLate whether the statement may be held up and land after its client gave up
     */
    private <T> T statement(String what, String key, boolean canLandLate, Supplier<T> body) {
        return statement(what, key, canLandLate, Duration.ZERO, body);
    }

    /**
     * @param dbWait how long the statement waits for the key's row lock, as a database's lock wait does: a
     *               statement that finds the row locked past it answers as if busy
     */
    private <T> T statement(String what, String key, boolean canLandLate, Duration dbWait, Supplier<T> body) {
        synchronized (this) {
            if (clock.nanoTime() < downUntilNanos) {
                trace.add("store down: " + what + " did not run");
                throw new LockStoreUnavailableException(key, "simulated: the store is down", null);
            }
            if (canLandLate && random.nextDouble() < rates.late()) {
                long landsAt = clock.nanoTime() + 1 + (long) (random.nextDouble() * rates.lateByNanos());
                late.add(new LateStatement(landsAt, lateCount++, what, () -> body.get()));
                trace.add("held up: " + what + " times out now, lands at " + Trace.millis(landsAt));
                throw new LockStoreUnavailableException(key, "simulated: the statement timed out", null);
            }
        }
        take(latency());
        waitForRowLock(key, dbWait);
        T result;
        boolean replyLost;
        synchronized (this) {
            result = body.get();
            replyLost = random.nextDouble() < rates.lostReply();
            trace.add(what + " -> " + shown(result) + (replyLost ? " (reply lost)" : ""));
        }
        take(latency());
        if (replyLost) {
            throw new LockStoreUnavailableException(key, "simulated: the reply was lost", null);
        }
        return result;
    }

    /** A lease by its token and version: its owner is a random id, different in every run. */
    private static String shown(Object result) {
        if (result instanceof Optional<?> state) {
            return state.map(SimulatedStore::shown).orElse("none");
        }
        if (result instanceof LockRowState state) {
            return state.mode() + " token " + state.token();
        }
        return result instanceof Lease lease ? "lease token " + lease.token() + " version " + lease.version()
                : String.valueOf(result);
    }

    /** The statement's time on the way: others run meanwhile where the simulation has waiting threads. */
    private void take(long nanos) {
        // the simulation's own thread, closing the managers at the end, is no thread of the world: its time passes at once
        if (world == null || !world.owns(Thread.currentThread())) {
            clock.advance(nanos);
            return;
        }
        world.parkUntil(clock.nanoTime() + nanos, this);
    }

    private void waitForRowLock(String key, Duration dbWait) {
        if (world == null || dbWait.isZero()) {
            return;
        }
        long until = clock.nanoTime() + dbWait.toNanos();
        while (clock.nanoTime() - until < 0) {
            synchronized (this) {
                Row row = rows.get(key);
                if (row == null || !rowLocked(row)) {
                    return;
                }
                rowLockWaiters.computeIfAbsent(key, k -> new ArrayList<>()).add(Thread.currentThread());
            }
            world.park(this, until - clock.nanoTime());
            synchronized (this) {
                List<Thread> waiting = rowLockWaiters.get(key);
                if (waiting != null) {
                    waiting.remove(Thread.currentThread());
                }
            }
        }
    }

    private long latency() {
        synchronized (this) {
            return random.nextDouble() < rates.slowReply() ? (long) (random.nextDouble() * rates.slowReplyNanos())
                    : random.nextInt(1_000_000);
        }
    }

    @Override
    public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
        Session session = new Session(key);
        Long token;
        try {
            token = statement("lock " + key + " for " + who(holder), key, false, dbWait, () -> {
                Row row = row(key);
                if (rowLocked(row) || leaseLive(row)) {
                    return null;
                }
                row.rowLock = session;
                row.exists = true;
                row.acquiredAtNanos = dbNow();
                row.token = ++lastToken;
                tokensDrawnAt.put(row.token, clock.nanoTime());
                sessions.add(session);
                return row.token;
            });
        } catch (LockStoreUnavailableException lostReply) {
            // the driver closes a connection whose statement failed: its transaction ends with it
            endSession(session);
            throw lostReply;
        }
        if (token == null) {
            return null;
        }
        return new SimulatedHold(key, owner, holder, token, session);
    }

    /**
     * Where the run says so, as the native path with clock tokens: a row lock passes to the next holder of its
     * JVM in its transaction; elsewhere, as a store whose releases commit, the holds are released.
     */
    @Override
    public boolean handsOverPessimisticHolds() {
        return handsOver;
    }

    private final class SimulatedHold implements PessimisticHold {
        private final String key;
        private final String owner;
        private final String holder;
        private final long token;
        private final Session session;
        /** Passed to the next holder: the transaction is that holder's now. */
        private volatile boolean handedOn;

        SimulatedHold(String key, String owner, String holder, long token, Session session) {
            this.key = key;
            this.owner = owner;
            this.holder = holder;
            this.token = token;
            this.session = session;
        }

        @Override
        public long token() {
            return token;
        }

        @Override
        public boolean isAlive(Duration timeout) {
            try {
                return statement("is the session of " + who(holder) + " on " + key + " alive", key, false,
                        () -> !session.ended);
            } catch (LockStoreUnavailableException broken) {
                // as the real stores answer: a check that fails on the hold's connection finds the session gone,
                // and the connection is closed, ending it
                endSession(session);
                return false;
            }
        }

        @Override
        public AnotherRow lockAnotherRow(String other, boolean shared) {
            try {
                return statement("lock " + other + (shared ? " shared" : " exclusively") + " for " + who(holder), other, false,
                        () -> {
                            if (session.ended) {
                                throw new LockStoreUnavailableException(other, "simulated: the session had ended", null);
                            }
                            Row row = row(other);
                            if (!row.exists) {
                                return AnotherRow.ABSENT;
                            }
                            if (lockedAgainst(row, session, shared)) {
                                return AnotherRow.BUSY;
                            }
                            if (shared) {
                                row.sharedBy.add(session);
                            } else {
                                row.rowLock = session;
                            }
                            session.otherRows.add(other);
                            return AnotherRow.LOCKED;
                        });
            } catch (LockStoreUnavailableException failed) {
                // the connection is closed after a failure, and its transaction with it
                endSession(session);
                throw failed;
            }
        }

        /**
         * One statement in the transaction, on the row it holds: the next holder's token, from the counter that
         * no rollback lowers, as the clock's reading is on a database. A failure ends the session, as the
         * driver closes the connection.
         */
        @Override
        public PessimisticHold handOver(String nextOwner, String nextHolder) {
            if (!handsOver || !session.otherRows.isEmpty()) {
                return null;
            }
            Long next;
            try {
                next = statement("hand " + key + " token " + token + " over to " + who(nextHolder), key, false, () -> {
                    Row row = row(key);
                    if (session.ended || row.rowLock != session) {
                        return null;
                    }
                    // the real stores write the grant with the next holder (MariaDB by a plain UPDATE, the
                    // others by the lock statement): its minimum hold counts from its hand-over
                    row.acquiredAtNanos = dbNow();
                    row.token = ++lastToken;
                    tokensDrawnAt.put(row.token, clock.nanoTime());
                    rowHandOvers++;
                    return row.token;
                });
            } catch (LockStoreUnavailableException failed) {
                synchronized (SimulatedStore.this) {
                    endSession(session);
                }
                return null;
            }
            if (next == null) {
                return null;
            }
            handedOn = true;
            return new SimulatedHold(key, nextOwner, nextHolder, next, session);
        }

        @Override
        public boolean release() {
            return !handedOn && commit("release " + key + " of " + who(holder), null);
        }

        @Override
        public boolean release(Duration holdAtLeast) {
            return !handedOn && commit("release " + key + " of " + who(holder) + " holding it at least " + holdAtLeast,
                    holdAtLeast);
        }

        private boolean commit(String what, Duration holdAtLeast) {
            try {
                return statement(what, key, false, () -> {
                    if (session.ended) {
                        return false;
                    }
                    Row row = row(key);
                    if (holdAtLeast != null) {
                        row.owner = owner;
                        row.token = token;
                        row.version++;
                        row.expiresAtNanos = row.acquiredAtNanos + holdAtLeast.toNanos();
                    }
                    endSession(session);
                    return true;
                });
            } catch (LockStoreUnavailableException failed) {
                // the connection is closed after a failure, and its transaction with it
                synchronized (SimulatedStore.this) {
                    endSession(session);
                }
                throw failed;
            }
        }
    }

    private synchronized void endSession(Session session) {
        session.ended = true;
        unlock(session.key, session);
        session.otherRows.forEach(other -> unlock(other, session));
    }

    private void unlock(String key, Session session) {
        Row row = rows.get(key);
        if (row == null || row.rowLock != session && !row.sharedBy.remove(session)) {
            return;
        }
        if (row.rowLock == session) {
            row.rowLock = null;
        }
        List<Thread> waiting = rowLockWaiters.remove(key);
        if (waiting != null) {
            waiting.forEach(java.util.concurrent.locks.LockSupport::unpark); // the next in line gets the row
        }
    }

    @Override
    public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
        return statement("take " + key + " for " + who(holder) + " for " + lease, key, true, dbWait, () -> {
            Row row = row(key);
            if (rowLocked(row) || leaseLive(row)) {
                return null;
            }
            row.owner = owner;
            row.exists = true;
            row.token = ++lastToken;
            tokensDrawnAt.put(row.token, clock.nanoTime());
            row.version++;
            row.acquiredAtNanos = dbNow();
            row.expiresAtNanos = dbNow() + lease.toNanos();
            return new Lease(key, owner, row.token, row.version);
        });
    }

    @Override
    public Lease renewLease(Lease lease, Duration duration) {
        return statement("renew " + lease.key() + " token " + lease.token() + " for " + duration, lease.key(), true,
                () -> renewed(lease, duration));
    }

    @Override
    public int renewalBatchSize() {
        return batchSize;
    }

    /** One statement for the batch: its faults hit every lease in it alike. */
    @Override
    public List<Lease> renewLeases(List<Lease> leases, Duration duration) {
        String keys = leases.stream().map(lease -> lease.key() + " token " + lease.token()).toList().toString();
        return statement("renew " + keys + " for " + duration, leases.get(0).key(), true,
                () -> leases.stream().map(lease -> renewed(lease, duration)).toList());
    }

    private Lease renewed(Lease lease, Duration duration) {
        Row row = row(lease.key());
        if (!holds(row, lease) || !leaseLive(row)) {
            return null;
        }
        row.version++;
        row.steppedOver = false;
        // a renewal never shortens a lease: one that lands late must not cut a minimum hold
        row.expiresAtNanos = bug == StoreBug.RENEWAL_SHORTENS_A_HOLD ? dbNow() + duration.toNanos()
                : Math.max(row.expiresAtNanos, dbNow() + duration.toNanos());
        return new Lease(lease.key(), lease.owner(), lease.token(), row.version);
    }

    @Override
    public Lease handOverLease(Lease lease, String newOwner, String holder, Duration duration) {
        return statement("hand " + lease.key() + " token " + lease.token() + " over to " + who(holder), lease.key(), true, () -> {
            Row row = row(lease.key());
            if (!holds(row, lease) || !leaseLive(row)) {
                return null;
            }
            row.owner = newOwner;
            row.steppedOver = false;
            row.token = ++lastToken;
            tokensDrawnAt.put(row.token, clock.nanoTime());
            row.version++;
            row.acquiredAtNanos = dbNow();
            row.expiresAtNanos = dbNow() + duration.toNanos();
            leaseHandOvers++;
            return new Lease(lease.key(), newOwner, row.token, row.version);
        });
    }

    @Override
    public boolean releaseLease(Lease lease) {
        return statement("release " + lease.key() + " token " + lease.token(), lease.key(), true, () -> {
            Row row = row(lease.key());
            if (!holds(row, lease)) {
                return false;
            }
            boolean live = leaseLive(row);
            row.owner = null;
            row.steppedOver = false;
            row.version++;
            return live;
        });
    }

    @Override
    public boolean releaseLease(Lease lease, Duration holdAtLeast) {
        return statement("release " + lease.key() + " token " + lease.token() + " holding it at least " + holdAtLeast,
                lease.key(), true, () -> {
                    Row row = row(lease.key());
                    if (!holds(row, lease)) {
                        return false;
                    }
                    boolean live = leaseLive(row);
                    row.version++;
                    if (live) {
                        row.expiresAtNanos = row.acquiredAtNanos + holdAtLeast.toNanos();
                    } else {
                        row.owner = null;
                    }
                    return live;
                });
    }

    @Override
    public synchronized Optional<LockRowState> inspect(String key) {
        return inspectNow(key);
    }

    /** As the real stores read them: committed rows, where a row lock does not show, only a live lease. */
    @Override
    public synchronized List<LockRowState> inspectLeases(List<String> keys) {
        return keys.stream().sorted().filter(rows::containsKey).map(key -> {
            Row row = rows.get(key);
            LockMode mode = leaseLive(row) ? LockMode.OPTIMISTIC : null;
            return new LockRowState(key, mode, null, row.token, null, null, mode == null ? null : row.owner, null);
        }).toList();
    }

    private synchronized Optional<LockRowState> inspectNow(String key) {
        Row row = rows.get(key);
        if (row == null) {
            return Optional.empty();
        }
        LockMode mode = rowLocked(row) ? LockMode.PESSIMISTIC : leaseLive(row) ? LockMode.OPTIMISTIC : null;
        return Optional.of(new LockRowState(key, mode, null, row.token, null, null,
                mode == LockMode.OPTIMISTIC ? row.owner : null, null));
    }

    /** An operator's: a pessimistic holder's session ended, a lease freed; the token raised either way. */
    @Override
    public Optional<LockRowState> forceRelease(String key) {
        return statement("force the release of " + key, key, false, () -> {
            Optional<LockRowState> ended = inspectNow(key).filter(state -> state.mode() != null);
            if (ended.isEmpty()) {
                return Optional.<LockRowState>empty();
            }
            Row row = row(key);
            if (rowLocked(row)) {
                endSession(row.rowLock);
            }
            row.owner = null;
            row.token = ++lastToken;
            tokensDrawnAt.put(row.token, clock.nanoTime());
            row.version++;
            return ended;
        });
    }

    @Override
    public int deleteIdleRows(Duration idleFor) {
        return 0;
    }

    // --- faults the simulation injects between statements

    synchronized void downFor(long nanos) {
        downUntilNanos = Math.max(downUntilNanos, clock.nanoTime() + nanos);
    }

    /** Ends a session that holds a row lock, as a killed connection does; @return whose, or null if none */
    synchronized String endASession() {
        List<Session> holding = sessions.stream().filter(session -> !session.ended).toList();
        sessions.removeIf(session -> session.ended);
        if (holding.isEmpty()) {
            return null;
        }
        Session session = holding.get(random.nextInt(holding.size()));
        endSession(session);
        return session.key;
    }

    /** Steps the database's clock back: leases last longer by the step, tokens are not on it. */
    synchronized void stepClockBack(long nanos) {
        clockOffsetNanos -= nanos;
    }

    /**
     * Steps the database's clock forward: every lease, minimum hold and lock-delay ends sooner by the step.
     *
     * @return the rows whose lease was live and ended with the step
     */
    synchronized Set<String> stepClockForward(long nanos) {
        Set<String> ended = new TreeSet<>();
        rows.forEach((key, row) -> {
            if (leaseLive(row)) {
                ended.add(key);
                row.steppedOver = true;
                row.steppedAtNanos = clock.nanoTime();
            }
        });
        clockOffsetNanos += nanos;
        ended.removeIf(key -> leaseLive(rows.get(key)));
        return ended;
    }

    /** @return when the token was drawn, in virtual time */
    synchronized long drawnAtNanos(long token) {
        return tokensDrawnAt.getOrDefault(token, Long.MIN_VALUE);
    }

    /** @return every lease a forward step cut short and another took, in the order found */
    synchronized List<LeaseCut> cuts() {
        return List.copyOf(cuts);
    }

    /** @return when the next held-up statement lands, or {@link Long#MAX_VALUE} */
    synchronized long nextLanding() {
        return late.stream().mapToLong(LateStatement::landsAtNanos).min().orElse(Long.MAX_VALUE);
    }

    /** Lands the held-up statements due by now, in the order they were sent. */
    void landDue() {
        List<LateStatement> due;
        synchronized (this) {
            due = late.stream().filter(statement -> statement.landsAtNanos() <= clock.nanoTime())
                    .sorted(Comparator.comparingLong(LateStatement::landsAtNanos).thenComparingInt(LateStatement::order))
                    .toList();
            late.removeAll(due);
        }
        for (LateStatement statement : due) {
            synchronized (this) {
                statement.effect().run();
                trace.add("landed late: " + statement.what());
            }
        }
    }

    /** @return the keys whose row is locked or whose lease is live on the database's clock */
    synchronized List<String> keysHeld() {
        return rows.entrySet().stream().filter(entry -> rowLocked(entry.getValue()) || leaseLive(entry.getValue()))
                .map(Map.Entry::getKey).sorted().toList();
    }

    /** @return when the last lease of any row ends, on the JVMs' clock */
    synchronized long lastLeaseEnd() {
        return rows.values().stream().filter(row -> row.owner != null)
                .mapToLong(row -> row.expiresAtNanos - clockOffsetNanos).max().orElse(0);
    }
}
