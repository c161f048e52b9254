package io.locked.api;

import java.time.Duration;

/** The rules a {@link LockRequest} is checked against as it is built; each message names the value. */
final class RequestChecks {
    /** What the lock table puts between a key and the rest of the key of a slot's row; no key may hold it. */
    private static final char ROW_MARK = '\u001F';
    /** The longest suffix of a read/write lock's row keys: the mark, {@code r}, two digits. */
    private static final int READER_SUFFIX_LENGTH = 4;

    private RequestChecks() {
    }

    static void check(String key, LockMode mode, Duration maxWait, Duration lease, String name, Duration holdAtLeast,
                      Duration lockDelay, int permits, LockType type) {
        if (key == null) {
            throw new IllegalArgumentException("Lock key must not be null");
        }
        if (key.isBlank()) {
            throw new IllegalArgumentException("Lock key must not be blank, was '" + key + "'");
        }
        if (key.length() > LockRequest.MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("Lock key must be at most " + LockRequest.MAX_KEY_LENGTH
                    + " characters, was " + key.length() + ": '" + key.substring(0, 40) + "...'");
        }
        String unstorable = unstorableCharacter(key);
        if (unstorable == null && key.indexOf(ROW_MARK) >= 0) {
            unstorable = "U+001F (at index " + key.indexOf(ROW_MARK) + "), which the lock table keeps for the rows of"
                    + " permits and read/write locks";
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
        if (lease.compareTo(LockRequest.MAX_LEASE) > 0) {
            throw new IllegalArgumentException("Lock lease must be at most " + LockRequest.MAX_LEASE.toDays() + " days for key '" + key
                    + "', was " + lease);
        }
        if (lease.toMillis() < 1) {
            throw new IllegalArgumentException("Lock lease must be at least 1ms for key '" + key + "', was " + lease);
        }
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("Lock name must not be null or blank for key '" + key + "', was '" + name + "'");
        }
        if (holdAtLeast == null || holdAtLeast.isNegative() || holdAtLeast.compareTo(LockRequest.MAX_LEASE) > 0) {
            throw new IllegalArgumentException("Lock holdAtLeast must be zero or positive and at most "
                    + LockRequest.MAX_LEASE.toDays() + " days for key '" + key + "', was " + holdAtLeast);
        }
        if (lockDelay == null || lockDelay.isNegative() || lockDelay.compareTo(LockRequest.MAX_LEASE) > 0) {
            throw new IllegalArgumentException("Lock lockDelay must be zero or positive and at most "
                    + LockRequest.MAX_LEASE.toDays() + " days for key '" + key + "', was " + lockDelay);
        }
        if (permits < 0 || permits > LockRequest.MAX_PERMITS) {
            throw new IllegalArgumentException("Lock permits must be 0 (an exclusive lock) or 1 to " + LockRequest.MAX_PERMITS
                    + " for key '" + key + "', was " + permits);
        }
        if (type == null) {
            throw new IllegalArgumentException("Lock type must not be null for key '" + key + "'");
        }
        if (permits > 0 && type != LockType.EXCLUSIVE) {
            throw new IllegalArgumentException("Lock permits need type EXCLUSIVE for key '" + key + "', was " + type
                    + ": a read/write lock's readers already share the key");
        }
        if (type != LockType.EXCLUSIVE && key.length() + READER_SUFFIX_LENGTH > LockRequest.MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("Lock key must be at most " + (LockRequest.MAX_KEY_LENGTH - READER_SUFFIX_LENGTH)
                    + " characters for a read/write lock (its rows add a suffix), was " + key.length());
        }
        if (permits > 0 && key.length() + slotSuffixLength(permits) > LockRequest.MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("Lock key must be at most " + (LockRequest.MAX_KEY_LENGTH - slotSuffixLength(permits))
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

    private static int slotSuffixLength(int permits) {
        return 1 + String.valueOf(permits).length();
    }
}
