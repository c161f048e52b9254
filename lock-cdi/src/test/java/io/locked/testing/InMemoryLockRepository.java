package io.locked.testing;

import io.locked.api.LockMode;
import io.locked.spi.Lease;
import io.locked.spi.LockRowState;
import io.locked.spi.LockRepository;
import io.locked.spi.PessimisticHold;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * A lock store in memory for the core's unit tests: row locks that wait like a database's, leases
 * on the monotonic clock, one token counter. It also watches how the core uses it: how many calls
 * for one key were in the store at once, and whether any hold was released twice.
 */
public final class InMemoryLockRepository implements LockRepository {
    private final Map<String, Row> rows = new HashMap<>();
    private long lastToken;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger mostInFlight = new AtomicInteger();
    private final AtomicInteger doubleReleases = new AtomicInteger();
    private final AtomicInteger storeCalls = new AtomicInteger();
    private final AtomicInteger handOvers = new AtomicInteger();
    private volatile boolean renewalsCut;
    private final Map<String, Duration> slowInspections = new ConcurrentHashMap<>();
    /** The database's clock: leases start and end on it. */
    private final LongSupplier clock;
    /** Whether a row goes once it is free, as if idle rows were cleaned up at once: its heap is then the core's alone. */
    private volatile boolean forgetsFreeRows;

    private final class Row {
        final Semaphore rowLock = new Semaphore(1, true);
        String owner;
        long token;
        long version;
        long expiresAtNanos;
        long acquiredAtNanos;

        boolean leaseLive() {
            return owner != null && clock.getAsLong() - expiresAtNanos < 0;
        }
    }

    /** A store on the system's monotonic clock. */
    public InMemoryLockRepository() {
        this(System::nanoTime);
    }

    /** @param clock the database's clock, in nanoseconds: a test moves it to make leases run out without waiting */
    public InMemoryLockRepository(LongSupplier clock) {
        this.clock = clock;
    }

    private synchronized Row row(String key) {
        return rows.computeIfAbsent(key, k -> new Row());
    }

    @Override
    public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
        enter();
        try {
            Row row = row(key);
            if (!row.rowLock.tryAcquire(dbWait.toNanos(), TimeUnit.NANOSECONDS)) {
                return null;
            }
            long token;
            synchronized (this) {
                if (row.leaseLive()) {
                    row.rowLock.release();
                    return null;
                }
                token = ++lastToken;
                row.acquiredAtNanos = clock.getAsLong();
            }
            AtomicBoolean released = new AtomicBoolean();
            return new PessimisticHold() {
                @Override
                public long token() {
                    return token;
                }

                @Override
                public boolean isAlive(Duration timeout) {
                    return true;
                }

                @Override
                public boolean release(Duration holdAtLeast) {
                    synchronized (InMemoryLockRepository.this) {
                        if (!released.get()) {
                            row.owner = owner;
                            row.expiresAtNanos = row.acquiredAtNanos + holdAtLeast.toNanos();
                        }
                    }
                    return release();
                }

                @Override
                public boolean release() {
                    if (!released.compareAndSet(false, true)) {
                        doubleReleases.incrementAndGet();
                        return false;
                    }
                    row.rowLock.release();
                    forgetIfFree(key, row);
                    return true;
                }
            };
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            exit();
        }
    }

    @Override
    public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
        enter();
        try {
            Row row = row(key);
            synchronized (this) {
                if (row.rowLock.availablePermits() == 0 || row.leaseLive()) {
                    return null;
                }
                row.owner = owner;
                row.token = ++lastToken;
                row.version++;
                row.expiresAtNanos = clock.getAsLong() + lease.toNanos();
                row.acquiredAtNanos = clock.getAsLong();
                return new Lease(key, owner, row.token, row.version);
            }
        } finally {
            exit();
        }
    }

    @Override
    public Lease renewLease(Lease lease, Duration duration) {
        if (renewalsCut) {
            throw new io.locked.api.LockStoreUnavailableException(lease.key(), "renewals cut by the test", null);
        }
        synchronized (this) {
            Row row = row(lease.key());
            if (!holds(row, lease) || !row.leaseLive()) {
                return null;
            }
            row.version++;
            row.expiresAtNanos = clock.getAsLong() + duration.toNanos();
            return new Lease(lease.key(), lease.owner(), lease.token(), row.version);
        }
    }

    @Override
    public Lease handOverLease(Lease lease, String newOwner, String holder, Duration duration) {
        enter();
        try {
            synchronized (this) {
                Row row = row(lease.key());
                if (!holds(row, lease) || !row.leaseLive()) {
                    return null;
                }
                row.owner = newOwner;
                row.token = ++lastToken;
                row.version++;
                row.expiresAtNanos = clock.getAsLong() + duration.toNanos();
                row.acquiredAtNanos = clock.getAsLong();
                handOvers.incrementAndGet();
                return new Lease(lease.key(), newOwner, row.token, row.version);
            }
        } finally {
            exit();
        }
    }

    public int handOvers() {
        return handOvers.get();
    }

    @Override
    public synchronized boolean releaseLease(Lease lease) {
        Row row = row(lease.key());
        if (!holds(row, lease)) {
            return false;
        }
        boolean live = row.leaseLive();
        row.owner = null;
        row.version++;
        forgetIfFree(lease.key(), row);
        return live;
    }

    /** From now on a row goes once it is free (its key's token counter is the store's, so tokens still rise). */
    public InMemoryLockRepository forgettingFreeRows() {
        forgetsFreeRows = true;
        return this;
    }

    private synchronized void forgetIfFree(String key, Row row) {
        if (forgetsFreeRows && row.rowLock.availablePermits() == 1 && !row.leaseLive() && rows.get(key) == row) {
            rows.remove(key);
        }
    }

    @Override
    public synchronized boolean releaseLease(Lease lease, Duration holdAtLeast) {
        Row row = row(lease.key());
        if (!holds(row, lease) || !row.leaseLive()) {
            return releaseLease(lease);
        }
        row.version++;
        row.expiresAtNanos = row.acquiredAtNanos + holdAtLeast.toNanos();
        return true;
    }

    /** Held PESSIMISTIC while its row lock is taken, OPTIMISTIC while its lease is live; read/write locks look at rows so. */
    @Override
    public Optional<LockRowState> inspect(String key) {
        Duration slow = slowInspections.get(key);
        if (slow != null) {
            LockSupport.parkNanos(slow.toNanos()); // a slow statement, as a loaded database answers it
        }
        return inspectNow(key);
    }

    private synchronized Optional<LockRowState> inspectNow(String key) {
        Row row = rows.get(key);
        if (row == null) {
            return Optional.empty();
        }
        LockMode mode = row.rowLock.availablePermits() == 0 ? LockMode.PESSIMISTIC
                : row.leaseLive() ? LockMode.OPTIMISTIC : null;
        return Optional.of(new LockRowState(key, mode, null, row.token, null, null,
                mode == LockMode.OPTIMISTIC ? row.owner : null, null));
    }

    // by owner and token, as the SPI asks: a renewal whose reply was lost moved the version on
    private static boolean holds(Row row, Lease lease) {
        return lease.owner().equals(row.owner) && row.token == lease.token();
    }

    @Override
    public int deleteIdleRows(Duration idleFor) {
        return 0;
    }

    public void cutRenewals() {
        renewalsCut = true;
    }

    /** Every later inspection of the key takes that long before it reads the row. */
    public void slowInspectionsOf(String key, Duration slow) {
        slowInspections.put(key, slow);
    }

    /** @return the most calls that were waiting or working in the store at once */
    public int mostCallsAtOnce() {
        return mostInFlight.get();
    }

    /** @return the calls waiting or working in the store right now */
    public int callsInFlight() {
        return inFlight.get();
    }

    /** @return whether the key is held: its row lock taken, or its lease live */
    public synchronized boolean holds(String key) {
        Row row = row(key);
        return row.rowLock.availablePermits() == 0 || row.leaseLive();
    }

    /** @return how many rows are held now: their row lock taken, or their lease live */
    public synchronized long rowsHeld() {
        return rows.values().stream().filter(row -> row.rowLock.availablePermits() == 0 || row.leaseLive()).count();
    }

    public int storeCalls() {
        return storeCalls.get();
    }

    public int doubleReleases() {
        return doubleReleases.get();
    }

    private void enter() {
        storeCalls.incrementAndGet();
        mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
    }

    private void exit() {
        inFlight.decrementAndGet();
    }
}
