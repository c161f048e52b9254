package io.locked.api;

/**
 * What a {@link Locked} method does when the lock was not acquired within the wait
 * ({@link LockNotAcquiredException#reason()}).
 */
public enum OnTimeout {
    /** Throw {@link LockNotAcquiredException}; the method does not run. */
    THROW,
    /**
     * When another holder had the key for the whole wait, do not run the method and return
     * "nothing": {@code null} for {@code void}/{@code Void}, {@code Optional.empty()}, or a completed
     * {@code CompletionStage<Void>}. When the store had no database connection, throw as
     * {@link #THROW} does: nobody runs the job then, and a skip would hide that.
     */
    SKIP,
    /**
     * As {@link #SKIP}, and skip as well when the store had no database connection
     * ({@link LockNotAcquiredException.Reason#NO_CONNECTION}): for a job that another run will
     * catch up on whatever kept it from running.
     */
    SKIP_ANY
}
