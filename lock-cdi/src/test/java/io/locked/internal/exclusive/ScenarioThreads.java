package io.locked.internal.exclusive;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The threads of one model-checking scenario ({@code KeyTurnsModelTest}'s kin: read/write, permits, the drain,
 * batched renewals): each runs a body, and a failure in any of them fails the scenario when it joins them all.
 */
public class ScenarioThreads {
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();

    /** Starts a thread of the scenario; what it throws fails the scenario at {@link #joinAll}. */
    public Thread thread(Runnable body) {
        Thread thread = new Thread(() -> {
            try {
                body.run();
            } catch (AssertionError | RuntimeException failed) {
                // not every Throwable: Lincheck ends a hung invocation's threads with errors of its own
                failures.add(failed);
                throw failed;
            }
        });
        thread.start();
        return thread;
    }

    /** Waits for the threads, then fails with the first failure any thread of the scenario had. */
    public void joinAll(List<Thread> threads) {
        for (Thread thread : threads) {
            try {
                thread.join();
            } catch (InterruptedException unexpected) {
                throw new AssertionError(unexpected);
            }
        }
        if (!failures.isEmpty()) {
            throw new AssertionError(failures.get(0).getMessage(), failures.get(0));
        }
    }
}
