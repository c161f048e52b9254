package io.locked.api;

import java.time.Duration;
import java.util.Objects;

/**
 * What to lock and how: an immutable value, checked as it is built. Start from {@link #of(String)}
 * and change what differs from the defaults; each change returns a new request and leaves the old
 * one as it was.
 *
 * <pre>{@code
 * LockRequest request = LockRequest.of("order:42").mode(LockMode.OPTIMISTIC).maxWait(Duration.ofSeconds(5))
 *         .name("order");
 * }</pre>
 *
 * <p>Every setting has an accessor and a method of the same name that returns a copy with another
 * value ({@code maxWait()} and {@code maxWait(Duration)}), named as the element of {@link Locked}
 * that sets it for a method. A setting that does not fit the ones already set is refused when it is
 * set: set the mode before a lock-delay, the type before a minimum hold.
 */
public final class LockRequest {
    /** The longest key the lock table holds (its primary key column is {@code VARCHAR(255)}). */
    public static final int MAX_KEY_LENGTH = 255;
    /**
     * The longest lease: 365 days. The watchdog renews a lease while it is held, so a longer one only
     * keeps a crashed holder's key taken for longer.
     */
    public static final Duration MAX_LEASE = Duration.ofDays(365);
    /** Default wait: 10 seconds. */
    public static final Duration DEFAULT_WAIT = Duration.ofSeconds(10);
    /** Default lease: 30 seconds, renewed every 10 seconds while held. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    /** Default name in metrics: {@code "api"}, shared by every request that does not set one. */
    public static final String DEFAULT_NAME = "api";
    /**
     * The most permits of one key: 100. A waiter for permits tries each slot in turn, one statement per
     * slot, before it pauses, so every permit costs a statement when all are taken.
     */
    public static final int MAX_PERMITS = 100;
    /**
     * The reader slots of one key's read/write lock: 32. The readers of one lock manager (one JVM) share a
     * slot, so this many JVMs may read a key at once; a reader of a 33rd waits for a slot.
     */
    public static final int MAX_READERS = 32;

    private final String key;
    private final LockMode mode;
    private final Duration maxWait;
    private final Duration lease;
    private final String name;
    private final Duration holdAtLeast;
    private final Duration lockDelay;
    private final int permits;
    private final LockType type;

    private LockRequest(String key, LockMode mode, Duration maxWait, Duration lease, String name, Duration holdAtLeast,
                        Duration lockDelay, int permits, LockType type) {
        RequestChecks.check(key, mode, maxWait, lease, name, holdAtLeast, lockDelay, permits, type);
        this.key = key;
        this.mode = mode;
        this.maxWait = maxWait;
        this.lease = lease;
        this.name = name;
        this.holdAtLeast = holdAtLeast;
        this.lockDelay = lockDelay;
        this.permits = permits;
        this.type = type;
    }

    /**
     * A request for the key's exclusive lock, {@link LockMode#PESSIMISTIC}, with the default wait,
     * lease and name.
     *
     * @param key the lock key: not blank, at most {@link #MAX_KEY_LENGTH} characters, with neither
     *            U+0000, U+001F nor a lone surrogate (none can be stored as written: two keys would share
     *            a row, or the database would refuse every call)
     * @return the request
     * @throws IllegalArgumentException for a key that breaks these rules; the message names it
     */
    public static LockRequest of(String key) {
        return new LockRequest(key, LockMode.PESSIMISTIC, DEFAULT_WAIT, DEFAULT_LEASE, DEFAULT_NAME, Duration.ZERO,
                Duration.ZERO, 0, LockType.EXCLUSIVE);
    }

    /** @return the lock key */
    public String key() {
        return key;
    }

    /** @return the lock mode; default {@link LockMode#PESSIMISTIC} */
    public LockMode mode() {
        return mode;
    }

    /**
     * @param newMode the lock mode, not null
     * @return a copy with that mode
     * @throws IllegalArgumentException for null, or {@code PESSIMISTIC} with a lock-delay
     */
    public LockRequest mode(LockMode newMode) {
        return new LockRequest(key, newMode, maxWait, lease, name, holdAtLeast, lockDelay, permits, type);
    }

    /**
     * @return how long to wait for the lock, the wait for a pooled database connection included: zero
     *         tries once; default {@link #DEFAULT_WAIT}
     */
    public Duration maxWait() {
        return maxWait;
    }

    /**
     * @param newWait how long to wait, zero or positive
     * @return a copy with that wait
     * @throws IllegalArgumentException for null or a negative wait
     */
    public LockRequest maxWait(Duration newWait) {
        return new LockRequest(key, mode, newWait, lease, name, holdAtLeast, lockDelay, permits, type);
    }

    /**
     * @return how long an optimistic lease lasts between renewals (pessimistic locks ignore it); default
     *         {@link #DEFAULT_LEASE}
     */
    public Duration lease() {
        return lease;
    }

    /**
     * @param newLease the optimistic lease, at least 1 ms and at most {@link #MAX_LEASE}
     * @return a copy with that lease
     * @throws IllegalArgumentException for null or a lease out of that range
     */
    public LockRequest lease(Duration newLease) {
        return new LockRequest(key, mode, maxWait, newLease, name, holdAtLeast, lockDelay, permits, type);
    }

    /**
     * @return what the lock's metrics are tagged with: a fixed name for a kind of lock ({@code "order"}),
     *         never the key itself, since every distinct name makes meters of its own; default
     *         {@link #DEFAULT_NAME}. {@code @Locked} methods use their key template.
     */
    public String name() {
        return name;
    }

    /**
     * @param newName the name in metrics, not blank (see {@link #name()})
     * @return a copy with that name
     * @throws IllegalArgumentException for a null or blank name
     */
    public LockRequest name(String newName) {
        return new LockRequest(key, mode, maxWait, lease, newName, holdAtLeast, lockDelay, permits, type);
    }

    /**
     * @return how long after the acquisition the key stays taken, even when the holder released it
     *         sooner, judged on the database's clock: a job run under it runs at most once per that
     *         period, whichever instance's trigger fires. Zero (the default) frees the key at release.
     */
    public Duration holdAtLeast() {
        return holdAtLeast;
    }

    /**
     * @param newHold the minimum hold, zero or positive, at most {@link #MAX_LEASE}; zero for
     *                {@link LockType#READ}
     * @return a copy with that minimum hold
     * @throws IllegalArgumentException for null, a hold out of that range, or a hold for a reader
     */
    public LockRequest holdAtLeast(Duration newHold) {
        return new LockRequest(key, mode, maxWait, lease, name, newHold, lockDelay, permits, type);
    }

    /**
     * @return how long the key stays taken after an optimistic holder stopped renewing its lease
     *         without releasing it (its JVM died, paused or lost the database), past the end of that
     *         lease: a new holder waits that much longer, which protects what cannot check fencing tokens
     *         from a holder that may still be at work. A release frees the key at once. The store keeps
     *         the lease plus the delay; the holder counts on its lease only. Zero by default.
     */
    public Duration lockDelay() {
        return lockDelay;
    }

    /**
     * @param newDelay the lock-delay, zero or positive, at most {@link #MAX_LEASE}; {@link LockMode#OPTIMISTIC}
     *                 only (a pessimistic holder's session death leaves no trace to delay the next holder by),
     *                 and zero for {@link LockType#READ}
     * @return a copy with that lock-delay
     * @throws IllegalArgumentException for null, a delay out of that range, a delay in pessimistic mode or
     *                                  for a reader
     */
    public LockRequest lockDelay(Duration newDelay) {
        return new LockRequest(key, mode, maxWait, lease, name, holdAtLeast, newDelay, permits, type);
    }

    /**
     * @return how many holders of the key may run at once: 0 (the default) for the key's exclusive lock,
     *         1 to {@link #MAX_PERMITS} for one of that many permits. A key's permits are counted apart
     *         from its exclusive lock: an exclusive holder of {@code "k"} neither waits for the permit
     *         holders of {@code "k"} nor keeps them out. Each permit is a slot of its own, with the tokens
     *         of that slot; requests of one key that ask for different counts share the slots they have
     *         in common, so at most the largest count of them hold at once.
     */
    public int permits() {
        return permits;
    }

    /**
     * @param newPermits 1 to {@link #MAX_PERMITS}, or 0 for the key's exclusive lock; more than 0 for
     *                   {@link LockType#EXCLUSIVE} only
     * @return a copy with that many permits
     * @throws IllegalArgumentException for a count out of that range, or permits of a read/write lock
     */
    public LockRequest permits(int newPermits) {
        return new LockRequest(key, mode, maxWait, lease, name, holdAtLeast, lockDelay, newPermits, type);
    }

    /**
     * @return {@link LockType#EXCLUSIVE} (the default), or a reader or the writer of the key's read/write
     *         lock: readers share the key, a writer has it alone. The read/write lock of a key is apart
     *         from its exclusive lock and its permits. Up to {@link #MAX_READERS} JVMs read a key at
     *         once, each in a reader slot of its own: the readers of one lock manager share a slot, in
     *         the mode and with the lease its first reader asked for (its handle's
     *         {@link LockHandle#mode()} tells which), and show the group's token
     */
    public LockType type() {
        return type;
    }

    /**
     * @param newType exclusive, or a reader or the writer of the key's read/write lock (see {@link #type()})
     * @return a copy of that type
     * @throws IllegalArgumentException for null, a type other than exclusive with permits, a reader with a
     *                                  minimum hold or lock-delay, or a key too long for the read/write
     *                                  lock's rows
     */
    public LockRequest type(LockType newType) {
        return new LockRequest(key, mode, maxWait, lease, name, holdAtLeast, lockDelay, permits, newType);
    }

    /** @return a copy that asks to read under the key's read/write lock: {@code type(LockType.READ)} */
    public LockRequest read() {
        return type(LockType.READ);
    }

    /** @return a copy that asks to write under the key's read/write lock: {@code type(LockType.WRITE)} */
    public LockRequest write() {
        return type(LockType.WRITE);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof LockRequest that && key.equals(that.key) && mode == that.mode
                && maxWait.equals(that.maxWait) && lease.equals(that.lease) && name.equals(that.name)
                && holdAtLeast.equals(that.holdAtLeast) && lockDelay.equals(that.lockDelay) && permits == that.permits
                && type == that.type;
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, mode, maxWait, lease, name, holdAtLeast, lockDelay, permits, type);
    }

    @Override
    public String toString() {
        return "LockRequest[" + key + ", " + mode + ", wait " + maxWait + ", lease " + lease
                + ", name " + name + (holdAtLeast.isZero() ? "" : ", hold at least " + holdAtLeast)
                + (lockDelay.isZero() ? "" : ", lock-delay " + lockDelay) + (permits == 0 ? "" : ", " + permits + " permits")
                + (type == LockType.EXCLUSIVE ? "" : ", " + type) + "]";
    }
}
