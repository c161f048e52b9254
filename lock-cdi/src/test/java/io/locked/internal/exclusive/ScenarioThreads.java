package io.locked.internal.exclusive;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.function.Executable;

/**
 * The threads of one model-checking scenario ({@code KeyTurnsModelTest}'s kin: read/write, permits, the drain,
 * batched renewals): each runs a body, and a failure in any of them fails the scenario when it joins them all.
 */
public class ScenarioThreads {
    /** What every scenario thread failed with since the last {@link #assertFinds}: the tests run one at a time. */
    private static final List<String> FAILED_SINCE = new CopyOnWriteArrayList<>();
    private final List<Throwable> failures = new CopyOnWriteArrayList<>();

    /**
     * A negative control: the model checking must fail, having found the seeded bug. Lincheck's message carries
     * the failure it found, except where it then fails to print its trace: Lincheck 3.7 has ended so with "GPMC
     * trace is expected" (a permits control, in a full run) and with "Index 3 out of bounds for length 3" (a
     * renewals control), after the run and its replay had both failed with the scenario's own words. So the
     * words count where a scenario thread failed with them during the model checking, too.
     *
     * @param words   what the failure of the seeded bug says
     * @param checked the model checking of a scenario with the bug seeded
     */
    public static void assertFinds(String words, Executable checked) {
        FAILED_SINCE.clear();
        Throwable found = assertThrows(Throwable.class, checked);
        String message = String.valueOf(found.getMessage());
        assertTrue(message.contains(words) || FAILED_SINCE.stream().anyMatch(failed -> failed.contains(words)),
                () -> "the model checking failed, but not with '" + words + "': " + message + "; its scenarios' threads"
                        + " failed with: " + FAILED_SINCE);
    }

    /** Starts a thread of the scenario; what it throws fails the scenario at {@link #joinAll}. */
    public Thread thread(Runnable body) {
        Thread thread = new Thread(() -> {
            try {
                body.run();
            } catch (AssertionError | RuntimeException failed) {
                // not every Throwable: Lincheck ends a hung invocation's threads with errors of its own
                failures.add(failed);
                FAILED_SINCE.add(String.valueOf(failed.getMessage()));
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
