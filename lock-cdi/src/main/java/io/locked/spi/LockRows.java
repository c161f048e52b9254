package io.locked.spi;

import io.locked.api.HolderKind;
import io.locked.api.LockRequest;
import java.util.List;

/**
 * How the core names the rows of a key's permits and read/write lock in the lock table: the key,
 * {@link #MARK}, then what the row is. A store keeps these keys as it keeps any other; it may
 * recognize them (to read a key's reader slots through one index range, for instance), and a tool
 * that reads the table directly finds its rows by them. The API never shows them: it tells a holder
 * by its key, kind and slot ({@link io.locked.api.LockInfo}).
 */
public final class LockRows {
    /**
     * The character between a key and the rest of a slot's row key: U+001F (the ASCII unit separator),
     * which no lock key may contain, so that no key can name another key's row.
     */
    public static final char MARK = '\u001F';

    private LockRows() {
    }

    /**
     * @param key  a lock key
     * @param kind which of its holders
     * @param slot the reader slot's or permit's number ({@link io.locked.api.LockHandle#slot()}); ignored
     *             for the exclusive lock and the writer
     * @return that holder's row: what a fence keeps the tokens of one holder's place under
     * @throws IllegalArgumentException for a reader slot or permit numbered out of its range
     */
    public static String of(String key, HolderKind kind, int slot) {
        return switch (kind) {
            case EXCLUSIVE -> key;
            case WRITER -> writer(key);
            case READER -> readerSlot(key, inRange(slot, LockRequest.MAX_READERS, "Reader slot"));
            case PERMIT -> permitSlot(key, inRange(slot, LockRequest.MAX_PERMITS, "Permit"));
        };
    }

    private static int inRange(int slot, int max, String what) {
        if (slot < 1 || slot > max) {
            throw new IllegalArgumentException(what + " must be 1 to " + max + ", was " + slot);
        }
        return slot;
    }

    /**
     * @param key  the key of the permits
     * @param slot the permit's slot, 1 to {@link LockRequest#MAX_PERMITS}
     * @return the row of one permit: the key, the mark and the slot's number
     */
    public static String permitSlot(String key, int slot) {
        return key + MARK + slot;
    }

    /**
     * @param key the key of a read/write lock
     * @return the writer's row: the key, the mark, {@code w}
     */
    public static String writer(String key) {
        return key + MARK + "w";
    }

    /**
     * @param key  the key of a read/write lock
     * @param slot the reader slot, 1 to {@link LockRequest#MAX_READERS}
     * @return the row of one reader slot: the key, the mark, {@code r} and the slot's number
     */
    public static String readerSlot(String key, int slot) {
        return key + MARK + "r" + slot;
    }

    /**
     * @param key the key of a read/write lock
     * @return the prefix every reader slot's row starts with: the key, the mark, {@code r}
     */
    public static String readerSlotPrefix(String key) {
        return key + MARK + "r";
    }

    /**
     * @param rows row keys
     * @return the lock key whose reader slots the rows are, every one of them in slot order (what a writer
     *         looks at); null for any other list
     */
    public static String readerSlotsOf(List<String> rows) {
        int mark = rows.isEmpty() ? -1 : rows.get(0).lastIndexOf(MARK);
        if (mark < 0 || rows.size() != LockRequest.MAX_READERS) {
            return null;
        }
        String key = rows.get(0).substring(0, mark);
        for (int slot = 1; slot <= LockRequest.MAX_READERS; slot++) {
            if (!rows.get(slot - 1).equals(readerSlot(key, slot))) {
                return null;
            }
        }
        return key;
    }

    /**
     * The row that a key's {@code PESSIMISTIC} readers lock shared, each reader slot's transaction beside
     * its slot, and its {@code PESSIMISTIC} writer exclusively before it enters. Nobody holds it as a lock
     * of its own.
     *
     * @param key the key of a read/write lock
     * @return the shared row: the key, the mark, {@code s}
     */
    public static String shared(String key) {
        return key + MARK + "s";
    }
}
