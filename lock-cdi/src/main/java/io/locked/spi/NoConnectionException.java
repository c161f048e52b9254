package io.locked.spi;

/**
 * Thrown by an acquisition of a {@link LockRepository} that got no database connection within its
 * connection wait: every connection of the pool was in use, or every one that pessimistic locks may
 * take. Not "busy": the key was not asked about. The manager ends the acquisition at once with a
 * {@link io.locked.api.LockNotAcquiredException} of reason
 * {@link io.locked.api.LockNotAcquiredException.Reason#NO_CONNECTION}, instead of asking again.
 */
public class NoConnectionException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param detail which pool, and its state */
    public NoConnectionException(String detail) {
        super(detail);
    }
}
