package io.locked.internal.base;

import io.locked.api.HolderKind;
import io.locked.api.LockInfo;
import io.locked.api.LockRequest;
import io.locked.spi.LockRows;
import java.util.ArrayList;
import java.util.List;

/**
 * The lock table's row of each holder of a key ({@link LockRows}), and back: what an operator's
 * {@link LockInfo} names by its key, kind and slot is one row of the table.
 */
public final class RowKeys {
    private RowKeys() {
    }

    /** A row told by its holder: the lock key, which of its holders, and the slot's number (0 for none). */
    public record Place(String key, HolderKind kind, int slot) {
        @Override
        public String toString() {
            return key + (kind == HolderKind.EXCLUSIVE ? "" : ", " + kind + (slot == 0 ? "" : " " + slot));
        }
    }

    /**
     * @param row a row of the lock table
     * @return whose row it is; null for a read/write lock's shared row, which no holder holds as its own,
     *         and for a row this version of Locked did not write
     */
    public static Place place(String row) {
        int mark = row.lastIndexOf(LockRows.MARK);
        if (mark < 0) {
            return new Place(row, HolderKind.EXCLUSIVE, 0);
        }
        String key = row.substring(0, mark);
        String suffix = row.substring(mark + 1);
        if (suffix.equals("w")) {
            return new Place(key, HolderKind.WRITER, 0);
        }
        if (suffix.startsWith("r")) {
            int slot = number(suffix.substring(1), LockRequest.MAX_READERS);
            return slot == 0 ? null : new Place(key, HolderKind.READER, slot);
        }
        int permit = number(suffix, LockRequest.MAX_PERMITS);
        return permit == 0 ? null : new Place(key, HolderKind.PERMIT, permit);
    }

    /** @return whose row a hold takes: as {@link #place}, where a row no holder holds counts as an exclusive lock's */
    public static Place placeOfHold(String row) {
        Place place = place(row);
        return place == null ? new Place(row, HolderKind.EXCLUSIVE, 0) : place;
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
     * @param key a read/write lock's key
     * @return the keys of all its reader slots, 1 to {@link LockRequest#MAX_READERS}: every row a reader
     *         may take ({@code ReadSide}), which a writer looks at ({@code WriteSide})
     */
    public static List<String> readerSlotKeys(String key) {
        List<String> slots = new ArrayList<>(LockRequest.MAX_READERS);
        for (int slot = 1; slot <= LockRequest.MAX_READERS; slot++) {
            slots.add(LockRows.readerSlot(key, slot));
        }
        return slots;
    }

    /**
     * @param key a lock key
     * @return the keys of every row a holder of the key can hold: its exclusive lock, its read/write
     *         lock's writer and reader slots, and its permits 1 to {@link LockRequest#MAX_PERMITS}; not the
     *         shared row, which no holder holds as its own
     */
    public static List<String> holderRowKeys(String key) {
        List<String> rows = new ArrayList<>(2 + LockRequest.MAX_READERS + LockRequest.MAX_PERMITS);
        rows.add(key);
        rows.add(LockRows.writer(key));
        rows.addAll(readerSlotKeys(key));
        for (int permit = 1; permit <= LockRequest.MAX_PERMITS; permit++) {
            rows.add(LockRows.permitSlot(key, permit));
        }
        return rows;
    }
}
