package io.locked.internal;

import io.locked.api.LockRequest;
import java.util.ArrayList;
import java.util.List;

/**
 * The keys of the rows behind permits and read/write locks, as operators pass them to inspection
 * and forced release: the lock key, {@link LockRequest#PERMIT_SLOT_MARK}, then a permit's slot number
 * ({@code 3}), {@code r} and a reader slot's number ({@code r3}), {@code w} for the writer, or {@code s}
 * for the row that pessimistic readers share ({@link LockRequest#sharedRowKey}).
 */
final class RowKeys {
    private RowKeys() {
    }

    /**
     * @param key a lock key, or the key of a permit's slot, a reader slot or a writer row
     * @return the key, checked
     * @throws IllegalArgumentException for a bad lock key, or a row suffix that names no row
     */
    static String checked(String key) {
        int mark = key == null ? -1 : key.lastIndexOf(LockRequest.PERMIT_SLOT_MARK);
        if (mark < 0) {
            return LockRequest.of(key).key();
        }
        String base = key.substring(0, mark);
        String suffix = key.substring(mark + 1);
        if (suffix.equals("w") || suffix.equals("s") || suffix.startsWith("r") && number(suffix.substring(1), LockRequest.MAX_READERS) > 0) {
            LockRequest.of(base).write();
            return key;
        }
        int permit = number(suffix, LockRequest.MAX_PERMITS);
        if (permit > 0) {
            LockRequest.of(base).permits(permit);
            return key;
        }
        throw new IllegalArgumentException("Lock key must not contain U+001F except before a permit's slot number (1 to "
                + LockRequest.MAX_PERMITS + "), a reader slot's (r1 to r" + LockRequest.MAX_READERS + "), w or s, was '"
                + key.replace(LockRequest.PERMIT_SLOT_MARK, '#') + "'");
    }

    /** @return the number the text writes without sign or leading zero, if 1 to max; else 0 */
    private static int number(String text, int max) {
        if (text.isEmpty() || text.length() > 3 || text.charAt(0) == '0' || !text.chars().allMatch(Character::isDigit)) {
            return 0;
        }
        int number = Integer.parseInt(text);
        return number <= max ? number : 0;
    }

    /**
     * @param checkedKey a key {@link #checked} accepted
     * @return its lock key
     */
    static String baseKey(String checkedKey) {
        int mark = checkedKey.lastIndexOf(LockRequest.PERMIT_SLOT_MARK);
        return mark < 0 ? checkedKey : checkedKey.substring(0, mark);
    }

    /**
     * @param key a read/write lock's key
     * @return the keys of all its reader slots, 1 to {@link LockRequest#MAX_READERS}: every row a reader
     *         may take ({@link ReadSide}), which a writer looks at ({@link WriteSide})
     */
    static List<String> readerSlotKeys(String key) {
        List<String> slots = new ArrayList<>(LockRequest.MAX_READERS);
        for (int slot = 1; slot <= LockRequest.MAX_READERS; slot++) {
            slots.add(LockRequest.readerSlotKey(key, slot));
        }
        return slots;
    }

    /**
     * @param key a lock key
     * @return the keys of every row a holder of the key can hold: its exclusive lock, its read/write
     *         lock's writer and reader slots, and its permits 1 to {@link LockRequest#MAX_PERMITS}; not the
     *         shared row, which no holder holds as its own
     */
    static List<String> holderRowKeys(String key) {
        List<String> rows = new ArrayList<>(2 + LockRequest.MAX_READERS + LockRequest.MAX_PERMITS);
        rows.add(key);
        rows.add(LockRequest.writerKey(key));
        rows.addAll(readerSlotKeys(key));
        for (int permit = 1; permit <= LockRequest.MAX_PERMITS; permit++) {
            rows.add(LockRequest.permitSlotKey(key, permit));
        }
        return rows;
    }

    /**
     * @param checkedKey a key {@link #checked} accepted
     * @return whether it is a read/write lock's shared row, which no holder holds as its own: its
     *         pessimistic readers' slots hold it together
     */
    static boolean isSharedRow(String checkedKey) {
        return checkedKey.endsWith(LockRequest.PERMIT_SLOT_MARK + "s");
    }

    /**
     * @param checkedKey a key {@link #checked} accepted
     * @return where its holder comes in a key's list of holders: the exclusive lock, the writer, the
     *         reader slots and the permits, each in number order
     */
    static int order(String checkedKey) {
        int mark = checkedKey.lastIndexOf(LockRequest.PERMIT_SLOT_MARK);
        if (mark < 0) {
            return 0;
        }
        String suffix = checkedKey.substring(mark + 1);
        if (suffix.equals("w")) {
            return 1;
        }
        return suffix.startsWith("r") ? 1 + Integer.parseInt(suffix.substring(1))
                : 1 + LockRequest.MAX_READERS + Integer.parseInt(suffix);
    }
}
