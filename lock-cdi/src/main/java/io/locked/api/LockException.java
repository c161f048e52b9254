package io.locked.api;

/**
 * The root of every exception Locked throws about a lock. Unchecked; names the key, and where the lock
 * is a permit or part of a read/write lock, its message says which.
 */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String key;

    /**
     * @param key     the lock key concerned; the core may pass the key of the table's row behind a
     *                permit or a read/write lock, of which {@link #key()} keeps the lock key
     * @param message what happened
     * @param cause   the underlying failure, or null
     */
    public LockException(String key, String message, Throwable cause) {
        super(message, cause);
        this.key = lockKey(key);
    }

    /**
     * @return the key as a message names it: {@code 'order:42'}, or for the row of a permit or a
     *         read/write lock {@code 'order:42' (permit 3)}, {@code (reader slot 2)}, {@code (writer)}
     */
    static String named(String key) {
        String lockKey = lockKey(key);
        if (key == null || lockKey.length() == key.length()) {
            return "'" + key + "'";
        }
        String row = key.substring(lockKey.length() + 1);
        String what = switch (row.isEmpty() ? ' ' : row.charAt(0)) {
            case 'w' -> "writer";
            case 'r' -> "reader slot " + row.substring(1);
            case 's' -> "readers' shared row";
            default -> "permit " + row;
        };
        return "'" + lockKey + "' (" + what + ")";
    }

    /** @return the key before the mark that no lock key holds (U+001F), which begins a row's suffix */
    private static String lockKey(String key) {
        int mark = key == null ? -1 : key.indexOf('\u001F');
        return mark < 0 ? key : key.substring(0, mark);
    }

    /** @return the lock key concerned, as the request named it */
    public String key() {
        return key;
    }
}
