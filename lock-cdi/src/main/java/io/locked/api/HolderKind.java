package io.locked.api;

/**
 * Which of a key's holders a lock is: a key has an exclusive lock, a read/write lock (one writer, a
 * reader slot per JVM) and permits, each apart from the others. Told by {@link LockHandle#kind()} and
 * {@link LockInfo#kind()}, with the slot's number in their {@code slot()}.
 */
public enum HolderKind {
    /** The key's exclusive lock ({@link LockType#EXCLUSIVE} without permits). */
    EXCLUSIVE,
    /** The writer of the key's read/write lock ({@link LockType#WRITE}). */
    WRITER,
    /** One reader slot of the key's read/write lock, shared by the readers of one JVM ({@link LockType#READ}). */
    READER,
    /** One of the key's permits ({@link LockRequest#permits()}). */
    PERMIT
}
