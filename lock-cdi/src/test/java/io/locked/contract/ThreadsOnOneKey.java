package io.locked.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Threads of one JVM cycling on one key, each incrementing a counter that nothing but the lock
 * guards (a read, a yield, a write): the history checker finds no overlap, and no update is lost.
 */
public final class ThreadsOnOneKey {
    private ThreadsOnOneKey() {
    }

    /**
     * @param threads     where the threads run (at least {@code threadCount} of them)
     * @param wait        each acquisition's wait
     * @param patience    how long each thread may take for all its cycles
     */
    public static void assertExclusion(LockManager locks, String key, LockMode mode, ExecutorService threads,
                                       int threadCount, int cycles, Duration wait, Duration patience) throws Exception {
        assertExclusion(List.of(locks), key, mode, threads, threadCount, cycles, wait, patience);
    }

    /**
     * As above, with {@code threadCount} threads on each of several managers (each standing for a JVM).
     *
     * @param threads where the threads run (at least {@code threadCount} for each manager)
     */
    public static void assertExclusion(List<LockManager> managers, String key, LockMode mode, ExecutorService threads,
                                       int threadCount, int cycles, Duration wait, Duration patience) throws Exception {
        HistoryRecorder history = new HistoryRecorder();
        int[] counter = {0};
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < threadCount * managers.size(); t++) {
            LockManager locks = managers.get(t % managers.size());
            workers.add(threads.submit(() -> {
                for (int i = 0; i < cycles; i++) {
                    try (LockHandle lock = locks.acquire(LockRequest.of(key).mode(mode).maxWait(wait))) {
                        long enter = System.nanoTime();
                        int read = counter[0];
                        Thread.yield();
                        counter[0] = read + 1;
                        history.record(new CriticalSection(Thread.currentThread().getName(), lock.token(), enter,
                                System.nanoTime()));
                    }
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(patience.toSeconds(), TimeUnit.SECONDS);
        }
        assertEquals(List.of(), HistoryChecker.violations(history.sections()), mode.toString());
        assertEquals(threadCount * managers.size() * cycles, history.sections().size(), mode.toString());
        assertEquals(threadCount * managers.size() * cycles, counter[0], mode + ": the unguarded counter lost updates");
    }
}
