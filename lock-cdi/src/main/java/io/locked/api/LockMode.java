package io.locked.api;

/**
 * How a lock is held. Both modes give mutual exclusion per key across every JVM that shares the
 * lock table; they differ in what a holder costs and in how a crashed holder's lock is freed.
 */
public enum LockMode {
    /**
     * A row lock ({@code SELECT ... FOR UPDATE}) held in a transaction that belongs to the lock.
     * Waiters queue inside the database. A holder keeps one connection for the whole hold; if its
     * process dies or its connection drops, the database frees the lock at once. No lease applies.
     * Pick it for short critical sections.
     */
    PESSIMISTIC,

    /**
     * A lease written into the row by a compare-and-set on its version; no transaction or
     * connection is held. A watchdog renews the lease while the lock is held; a crashed holder's
     * lease expires (on the database's clock) and the next acquirer takes over. Pick it for long
     * jobs and for many waiters.
     */
    OPTIMISTIC
}
