package io.locked.it.process;

/** What became of one counter write inside a critical section. */
public enum WriteOutcome {
    /** Written. */
    OK,
    /** The fence refused it: a higher token had written. */
    REFUSED,
    /** It failed (the database was down or the connection cut); it may or may not have been applied. */
    FAILED
}
