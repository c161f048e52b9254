package io.locked.api;

/**
 * An acquisition through a {@link LockManager} that is closing or closed: at an application's
 * shutdown, the manager grants no new locks while the held ones drain. {@code @Locked} methods with
 * {@link OnTimeout#SKIP} or {@link OnTimeout#SKIP_ANY} skip instead (a scheduled job whose trigger
 * fires during the shutdown); with {@link OnTimeout#THROW} the call fails with this exception.
 */
public class LockManagerClosedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** @param message what was refused, naming the key */
    public LockManagerClosedException(String message) {
        super(message);
    }
}
