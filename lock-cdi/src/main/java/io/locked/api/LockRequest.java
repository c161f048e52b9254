package io.locked.api;

import java.time.Duration;
import java.util.Objects;

/**
 * What to lock and how: an immutable value, checked when it is built.
 *
 * <pre>{@code
 * LockRequest request = LockRequest.of("order:42").mode(LockMode.OPTIMISTIC).waitFor(Duration.ofSeconds(5))
 *         .name("order");
 * }</pre>
 *
 * @param key   the lock key: not blank, at most {@link #MAX_KEY_LENGTH} characters, with neither U+0000
 *              nor a lone surrogate (neither can be stored as written: two keys would share a row, or
 *              the database would refuse every call)
 * @param mode  the lock mode; default {@link LockMode#PESSIMISTIC}
 * @param maxWait how long to wait for the lock, the wait for a pooled database connection included:
 *                zero tries once; default {@link #DEFAULT_WAIT}
 * @param lease how long an optimistic lease lasts between renewals (ignored by pessimistic locks):
 *              at least 1 ms and at most {@link #MAX_LEASE}; default {@link #DEFAULT_LEASE}
 * @param name  what the lock's metrics are tagged with: a fixed name for a kind of lock ({@code "order"}),
 *              never the key itself, since every distinct name makes meters of its own; not blank;
 *              default {@link #DEFAULT_NAME}. {@code @Locked} methods use their key template.
 * @param holdAtLeast how long after the acquisition the key stays taken, even when the holder released
 *              it sooner, judged on the database's clock: a job run under it runs at most once per that
 *              period, whichever instance's trigger fires. Zero (the default) frees the key at release.
 *              Zero or positive, at most {@link #MAX_LEASE}; zero for {@link LockType#READ}
 * @param lockDelay how long the key stays taken after an optimistic holder stopped renewing its lease
 *              without releasing it (its JVM died, paused or lost the database), past the end of that
 *              lease: a new holder waits that much longer, which protects what cannot check fencing
 *              tokens from a holder that may still be at work. A release frees the key at once. The
 *              store keeps the lease plus the delay; the holder counts on its lease only. Optimistic
 *              mode only (a pessimistic holder's session death leaves no trace). Zero (the default) or
 *              positive, at most {@link #MAX_LEASE}; zero for {@link LockType#READ}
 * @param permits how many holders of the key may run at once: 0 (the default) for the key's
 *              exclusive lock; 1 to {@link #MAX_PERMITS} for one of that many permits. A key's permits
 *              are counted apart from its exclusive lock: an exclusive holder of {@code "k"} neither
 *              waits for the permit holders of {@code "k"} nor keeps them out. Each permit is a row of
 *              its own, its <em>slot</em> ({@link #permitSlotKey(String, int)}), with the tokens of that
 *              slot; requests of one key that ask for different counts share the slots they have in
 *              common, so at most the largest count of them hold at once; {@link LockType#EXCLUSIVE} only
 * @param type  {@link LockType#EXCLUSIVE} (the default), or a reader or the writer of the key's
 *              read/write lock: readers share the key, a writer has it alone. The read/write lock of a
 *              key is apart from its exclusive lock and its permits. Its rows are a writer row
 *              ({@link #writerKey(String)}) and up to {@link #MAX_READERS} reader slots
 *              ({@link #readerSlotKey(String, int)}), and for {@code PESSIMISTIC} readers a shared row
 *              ({@link #sharedRowKey(String)}); the readers of one lock manager share a slot: a reader that
 *              joins its JVM's group holds the group's slot, in the mode and with the lease its first reader
 *              asked for (its handle's {@link LockHandle#mode()} tells which), and shows the group's token
 */
public record LockRequest(String key, LockMode mode, Duration maxWait, Duration lease, String name,
                          Duration holdAtLeast, Duration lockDelay, int permits, LockType type) {

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
     * The character between a key and its slot number in a permit's slot key: U+001F (the ASCII unit
     * separator). A key of a request may not contain it, so no key can name another key's slot.
     */
    public static final char PERMIT_SLOT_MARK = '\u001F';
    /**
     * The reader slots of one key's read/write lock: 32. The readers of one lock manager (one JVM) share a
     * slot, so this many JVMs may read a key at once; a reader of a 33rd waits for a slot.
     */
    public static final int MAX_READERS = 32;

    /**
     * Checks every component.
     *
     * @throws IllegalArgumentException for a null, blank or too long key, a key with U+0000 or a lone
     *                                  surrogate, a null mode, a negative wait, a lease under 1 ms or over
     *                                  {@link #MAX_LEASE}, a null or blank name, a negative holdAtLeast or
     *                                  lockDelay or one over {@link #MAX_LEASE}, or a lockDelay in
     *                                  pessimistic mode; the message names the value
     */
    public LockRequest {
        if (key == null) {
            throw new IllegalArgumentException("Lock key must not be null");
        }
        if (key.isBlank()) {
            throw new IllegalArgumentException("Lock key must not be blank, was '" + key + "'");
        }
        if (key.length() > MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("Lock key must be at most " + MAX_KEY_LENGTH
                    + " characters, was " + key.length() + ": '" + key.substring(0, 40) + "...'");
        }
        String unstorable = unstorableCharacter(key);
        if (unstorable == null && key.indexOf(PERMIT_SLOT_MARK) >= 0) {
            unstorable = "U+001F (at index " + key.indexOf(PERMIT_SLOT_MARK) + "), which marks the slots of permits";
        }
        if (unstorable != null) {
            throw new IllegalArgumentException("Lock key must not contain " + unstorable + ", was '"
                    + key.replace("\0", "\\0") + "'");
        }
        if (mode == null) {
            throw new IllegalArgumentException("Lock mode must not be null for key '" + key + "'");
        }
        if (maxWait == null || maxWait.isNegative()) {
            throw new IllegalArgumentException("Lock wait must be zero or positive for key '" + key + "', was " + maxWait);
        }
        if (lease == null || lease.isNegative() || lease.isZero()) {
            throw new IllegalArgumentException("Lock lease must be positive for key '" + key + "', was " + lease);
        }
        if (lease.compareTo(MAX_LEASE) > 0) {
            throw new IllegalArgumentException("Lock lease must be at most " + MAX_LEASE.toDays() + " days for key '" + key
                    + "', was " + lease);
        }
        if (lease.toMillis() < 1) {
            throw new IllegalArgumentException("Lock lease must be at least 1ms for key '" + key + "', was " + lease);
        }
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("Lock name must not be null or blank for key '" + key + "', was '" + name + "'");
        }
        if (holdAtLeast == null || holdAtLeast.isNegative() || holdAtLeast.compareTo(MAX_LEASE) > 0) {
            throw new IllegalArgumentException("Lock holdAtLeast must be zero or positive and at most "
                    + MAX_LEASE.toDays() + " days for key '" + key + "', was " + holdAtLeast);
        }
        if (lockDelay == null || lockDelay.isNegative() || lockDelay.compareTo(MAX_LEASE) > 0) {
            throw new IllegalArgumentException("Lock lockDelay must be zero or positive and at most "
                    + MAX_LEASE.toDays() + " days for key '" + key + "', was " + lockDelay);
        }
        if (permits < 0 || permits > MAX_PERMITS) {
            throw new IllegalArgumentException("Lock permits must be 0 (an exclusive lock) or 1 to " + MAX_PERMITS
                    + " for key '" + key + "', was " + permits);
        }
        if (type == null) {
            throw new IllegalArgumentException("Lock type must not be null for key '" + key + "'");
        }
        if (permits > 0 && type != LockType.EXCLUSIVE) {
            throw new IllegalArgumentException("Lock permits need type EXCLUSIVE for key '" + key + "', was " + type
                    + ": a read/write lock's readers already share the key");
        }
        if (type != LockType.EXCLUSIVE && key.length() + READER_SUFFIX_LENGTH > MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("Lock key must be at most " + (MAX_KEY_LENGTH - READER_SUFFIX_LENGTH)
                    + " characters for a read/write lock (its rows add a suffix), was " + key.length());
        }
        if (permits > 0 && key.length() + slotSuffixLength(permits) > MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("Lock key must be at most " + (MAX_KEY_LENGTH - slotSuffixLength(permits))
                    + " characters with " + permits + " permits (each permit's slot key adds its number), was "
                    + key.length());
        }
        if (type == LockType.READ && (!holdAtLeast.isZero() || !lockDelay.isZero())) {
            throw new IllegalArgumentException("Lock " + (holdAtLeast.isZero() ? "lockDelay" : "holdAtLeast")
                    + " needs type EXCLUSIVE or WRITE for key '" + key + "', was READ: a reader joins its JVM's group of"
                    + " readers, whose slot the group's first reader took, so it would keep that slot, not the reader's own"
                    + " hold, or nothing at all");
        }
        if (!lockDelay.isZero() && mode == LockMode.PESSIMISTIC) {
            throw new IllegalArgumentException("Lock lockDelay needs OPTIMISTIC mode for key '" + key
                    + "': a pessimistic holder whose session dies leaves no trace in the row to delay the next holder by");
        }
    }

    /**
     * @return what in the key cannot be stored as written, or null: U+0000, which PostgreSQL refuses in
     *         text, and a lone surrogate, which UTF-8 encodes as '?' so that two keys would share a row
     */
    private static String unstorableCharacter(String key) {
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == 0) {
                return "U+0000 (at index " + i + ")";
            }
            if (Character.isHighSurrogate(c) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return String.format("a lone surrogate U+%04X (at index %d)", (int) c, i);
            }
        }
        return null;
    }

    /** The longest suffix of a read/write lock's row keys: the mark, {@code r}, two digits. */
    private static final int READER_SUFFIX_LENGTH = 4;

    private static int slotSuffixLength(int permits) {
        return 1 + String.valueOf(permits).length();
    }

    /**
     * A request for the key's exclusive lock or one of its permits.
     *
     * @param key         the lock key
     * @param mode        the lock mode
     * @param maxWait     how long to wait
     * @param lease       the optimistic lease
     * @param name        the name in metrics
     * @param holdAtLeast the minimum hold
     * @param lockDelay   the lock-delay
     * @param permits     0, or how many permits
     * @throws IllegalArgumentException as the canonical constructor
     */
    public LockRequest(String key, LockMode mode, Duration maxWait, Duration lease, String name,
                       Duration holdAtLeast, Duration lockDelay, int permits) {
        this(key, mode, maxWait, lease, name, holdAtLeast, lockDelay, permits, LockType.EXCLUSIVE);
    }

    /**
     * A request for the key's exclusive lock (no permits).
     *
     * @param key         the lock key
     * @param mode        the lock mode
     * @param maxWait     how long to wait
     * @param lease       the optimistic lease
     * @param name        the name in metrics
     * @param holdAtLeast the minimum hold
     * @param lockDelay   the lock-delay
     * @throws IllegalArgumentException as the canonical constructor
     */
    public LockRequest(String key, LockMode mode, Duration maxWait, Duration lease, String name,
                       Duration holdAtLeast, Duration lockDelay) {
        this(key, mode, maxWait, lease, name, holdAtLeast, lockDelay, 0);
    }

    /**
     * The key of one permit's row: the key, {@link #PERMIT_SLOT_MARK} and the slot's number. What
     * {@link LockHandle#key()} of a permit answers, and what inspection and forced release take to
     * see or end that one permit.
     *
     * @param key  the key of the permits
     * @param slot the slot, 1 to the count of permits
     * @return the slot's key
     */
    public static String permitSlotKey(String key, int slot) {
        return key + PERMIT_SLOT_MARK + slot;
    }

    /**
     * The key of the writer row of a key's read/write lock: the key, {@link #PERMIT_SLOT_MARK}, {@code w}.
     *
     * @param key the key of the read/write lock
     * @return the writer row's key, which {@link LockHandle#key()} of a writer answers
     */
    public static String writerKey(String key) {
        return key + PERMIT_SLOT_MARK + "w";
    }

    /**
     * The key of one reader slot of a key's read/write lock: the key, {@link #PERMIT_SLOT_MARK}, {@code r}
     * and the slot's number.
     *
     * @param key  the key of the read/write lock
     * @param slot the slot, 1 to {@link #MAX_READERS}
     * @return the slot's key, which {@link LockHandle#key()} of a reader answers
     */
    public static String readerSlotKey(String key, int slot) {
        return key + PERMIT_SLOT_MARK + "r" + slot;
    }

    /**
     * The key of the row that a key's {@code PESSIMISTIC} readers lock shared, each reader slot's
     * transaction beside its slot, and its {@code PESSIMISTIC} writer exclusively before it enters: the
     * key, {@link #PERMIT_SLOT_MARK}, {@code s}. Nobody holds it as a lock of its own: it has no holder.
     *
     * @param key the key of the read/write lock
     * @return the shared row's key
     */
    public static String sharedRowKey(String key) {
        return key + PERMIT_SLOT_MARK + "s";
    }

    /**
     * A request that frees its key at release.
     *
     * @param key     the lock key
     * @param mode    the lock mode
     * @param maxWait how long to wait
     * @param lease   the optimistic lease
     * @param name    the name in metrics
     * @throws IllegalArgumentException as the canonical constructor
     */
    public LockRequest(String key, LockMode mode, Duration maxWait, Duration lease, String name) {
        this(key, mode, maxWait, lease, name, Duration.ZERO, Duration.ZERO);
    }

    /**
     * A request with the default name {@link #DEFAULT_NAME}.
     *
     * @param key     the lock key
     * @param mode    the lock mode
     * @param maxWait how long to wait
     * @param lease   the optimistic lease
     * @throws IllegalArgumentException as the canonical constructor
     */
    public LockRequest(String key, LockMode mode, Duration maxWait, Duration lease) {
        this(key, mode, maxWait, lease, DEFAULT_NAME);
    }

    /**
     * A pessimistic request with the default wait and lease.
     *
     * @param key the lock key (see the record description for its constraints)
     * @return the request
     */
    public static LockRequest of(String key) {
        return new LockRequest(key, LockMode.PESSIMISTIC, DEFAULT_WAIT, DEFAULT_LEASE);
    }

    /**
     * @param newMode the lock mode, not null
     * @return a copy with that mode
     */
    public LockRequest mode(LockMode newMode) {
        return new LockRequest(key, newMode, maxWait, lease, name, holdAtLeast, lockDelay, permits, type);
    }

    /**
     * @param newWait how long to wait, zero or positive
     * @return a copy with that wait
     */
    public LockRequest waitFor(Duration newWait) {
        return new LockRequest(key, mode, newWait, lease, name, holdAtLeast, lockDelay, permits, type);
    }

    /**
     * @param newLease the optimistic lease, positive
     * @return a copy with that lease
     */
    public LockRequest leaseFor(Duration newLease) {
        return new LockRequest(key, mode, maxWait, newLease, name, holdAtLeast, lockDelay, permits, type);
    }

    /**
     * @param newName the name the lock's metrics are tagged with: not blank, and a name for a kind of
     *                lock, not the key (see {@link #name()})
     * @return a copy with that name
     */
    public LockRequest name(String newName) {
        return new LockRequest(key, mode, maxWait, lease, newName, holdAtLeast, lockDelay, permits, type);
    }

    /**
     * @param newHold how long after the acquisition the key stays taken, zero or positive (see
     *                {@link #holdAtLeast()})
     * @return a copy with that minimum hold
     */
    public LockRequest holdAtLeast(Duration newHold) {
        return new LockRequest(key, mode, maxWait, lease, name, newHold, lockDelay, permits, type);
    }

    /**
     * @param newDelay how long the key stays taken past the lease of a holder that stopped renewing
     *                 without releasing, zero or positive; optimistic mode only (see {@link #lockDelay()})
     * @return a copy with that lock-delay
     */
    public LockRequest lockDelay(Duration newDelay) {
        return new LockRequest(key, mode, maxWait, lease, name, holdAtLeast, newDelay, permits, type);
    }

    /**
     * @param newPermits how many holders of the key may run at once, 1 to {@link #MAX_PERMITS}; 0 for
     *                   the key's exclusive lock (see {@link #permits()})
     * @return a copy with that many permits
     */
    public LockRequest permits(int newPermits) {
        return new LockRequest(key, mode, maxWait, lease, name, holdAtLeast, lockDelay, newPermits, type);
    }

    /**
     * @param newType exclusive, or a reader or the writer of the key's read/write lock (see {@link #type()})
     * @return a copy of that type
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
    public String toString() {
        return "LockRequest[" + Objects.toString(key) + ", " + mode + ", wait " + maxWait + ", lease " + lease
                + ", name " + name + (holdAtLeast.isZero() ? "" : ", hold at least " + holdAtLeast)
                + (lockDelay.isZero() ? "" : ", lock-delay " + lockDelay) + (permits == 0 ? "" : ", " + permits + " permits")
                + (type == LockType.EXCLUSIVE ? "" : ", " + type) + "]";
    }
}
