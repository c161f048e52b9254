package io.locked.it.fault;

/** How one injected fault ended for the gated holder's lock. */
enum Takeover {
    /** Another holder entered after the fault while the gated holder was still inside. */
    TAKEN_OVER,
    /** Waiters kept being refused for longer than a lease after the fault: the holder kept the lock. */
    HELD
}
