package io.locked.api;

/**
 * Whom a held lock admits beside it, as EJB's and Jakarta Concurrency's {@code @Lock(READ/WRITE)}
 * name it, but across every JVM that shares the lock table.
 */
public enum LockType {
    /** The key's exclusive lock: nobody else (the default). With permits, that many holders. */
    EXCLUSIVE,
    /**
     * A reader of the key's read/write lock: other readers at once, no writer. A reader waits while a
     * writer holds the key or waits for it, so a writer is not starved by a stream of readers.
     */
    READ,
    /** The writer of the key's read/write lock: no other writer and no reader. */
    WRITE
}
