package io.locked.bench;

/** One lock/unlock cycle on a key, running {@code inside} while the lock is held. */
@FunctionalInterface
interface Cycle {
    void run(String key, Runnable inside) throws Exception;
}
