package io.locked.api;

/** What a {@link Locked} method does when the lock was not acquired within the wait. */
public enum OnTimeout {
    /** Throw {@link LockNotAcquiredException}; the method does not run. */
    THROW,
    /**
     * Do not run the method and return "nothing": {@code null} for {@code void}/{@code Void},
     * {@code Optional.empty()}, or a completed {@code CompletionStage<Void>}.
     */
    SKIP
}
