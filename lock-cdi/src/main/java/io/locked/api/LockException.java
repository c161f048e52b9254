package io.locked.api;

/** The root of every exception Locked throws about a lock. Unchecked; names the key. */
public class LockException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String key;

    /**
     * @param key     the lock key concerned
     * @param message what happened
     * @param cause   the underlying failure, or null
     */
    public LockException(String key, String message, Throwable cause) {
        super(message, cause);
        this.key = key;
    }

    /** @return the lock key concerned */
    public String key() {
        return key;
    }
}
