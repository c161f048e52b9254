package io.locked.api;

/** The lock table could not be read or written: the database is down, slow or refused the statement. */
public class LockStoreUnavailableException extends LockException {
    private static final long serialVersionUID = 1L;

    /**
     * @param key     the lock key
     * @param message what was being done
     * @param cause   the database's failure
     */
    public LockStoreUnavailableException(String key, String message, Throwable cause) {
        super(key, "Lock store unavailable for " + named(key) + ": " + message
                + (cause == null ? "" : " (" + cause + ")"), cause);
    }
}
