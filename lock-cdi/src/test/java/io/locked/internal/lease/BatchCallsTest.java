package io.locked.internal.lease;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Batches of renewals one after another on one call thread, and another thread for those queued behind
 * a call that hangs. The test runs the threads' work and the stall checks itself, in the order each case
 * names, so nothing depends on the machine's speed.
 */
class BatchCallsTest {
    private final List<Runnable> threadsStarted = new ArrayList<>();
    private final Executor threads = threadsStarted::add;
    private final ManualScheduler scheduler = new ManualScheduler();
    private final BatchCalls calls = new BatchCalls(threads, scheduler);
    private final List<String> events = new ArrayList<>();

    @AfterEach
    void stopScheduler() {
        scheduler.shutdownNow();
        Thread.interrupted();
    }

    @Test
    void batchesDueTogetherRunOneAfterAnotherOnOneThread() {
        calls.execute(batch("a"));
        calls.execute(batch("b"));
        calls.execute(batch("c"));
        assertEquals(1, threadsStarted.size(), "one thread for the three");

        threadsStarted.get(0).run();
        assertEquals(List.of("a", "b", "c"), events);
        scheduler.fireAll();
        assertEquals(1, threadsStarted.size(), "the stall check found calls started: no other thread");

        calls.execute(batch("d"));
        assertEquals(2, threadsStarted.size(), "a batch after the queue ran dry starts a thread again");
        threadsStarted.get(1).run();
        assertEquals(List.of("a", "b", "c", "d"), events);
    }

    @Test
    void batchesQueuedBehindAHungCallGoToAnotherThreadAfterTheStall() {
        calls.execute(() -> {
            events.add("hung starts");
            // its statement waits for a row lock; the check scheduled when b was queued finds this call
            // started since, and looks again a stall later
            assertEquals(List.of(BatchCalls.STALL_NANOS), scheduler.delays, "a check at the stall's bound");
            scheduler.fireAll();
            assertEquals(1, threadsStarted.size(), "a call started since the batch was queued");
            scheduler.fireAll();
            assertEquals(2, threadsStarted.size(), "none started for a stall: another thread takes the queue");
            threadsStarted.get(1).run();
            events.add("hung ends");
        });
        calls.execute(batch("b"));
        calls.execute(batch("c"));

        threadsStarted.get(0).run();
        assertEquals(List.of("hung starts", "b", "c", "hung ends"), events);
    }

    @Test
    void aBatchQueuedWhileTheDrainsLastCallHangsGetsAThreadAfterTheStall() {
        calls.execute(() -> {
            events.add("a");
            calls.execute(batch("b"));
            calls.execute(() -> {
                events.add("c starts");
                scheduler.fireAll(); // the check of b's queueing: nothing is queued now
                assertEquals(1, threadsStarted.size());
                calls.execute(batch("d"));
                scheduler.fireAll(); // the check of d's queueing: no call started since, and d waits
                assertEquals(2, threadsStarted.size(), "d goes to another thread");
                threadsStarted.get(1).run();
                events.add("c ends");
            });
        });
        threadsStarted.get(0).run();
        assertEquals(List.of("a", "b", "c starts", "d", "c ends"), events);
    }

    @Test
    void aClosedWatchdogRefusesTheBatch() {
        BatchCalls closed = new BatchCalls(batch -> {
            throw new RejectedExecutionException("closed");
        }, scheduler);
        assertThrows(RejectedExecutionException.class, () -> closed.execute(batch("a")));
        assertThrows(RejectedExecutionException.class, () -> closed.execute(batch("b")),
                "still no thread: not queued behind a drain that never started");
    }

    @Test
    void anInterruptedDrainStopsAndLeavesTheQueueToTheNextThread() {
        calls.execute(() -> {
            events.add("a");
            Thread.currentThread().interrupt(); // the watchdog's close
        });
        calls.execute(batch("b"));
        threadsStarted.get(0).run();
        assertTrue(Thread.interrupted(), "the interrupt is left set for the thread's owner");
        assertEquals(List.of("a"), events, "the batch queued is not renewed by the interrupted thread");

        calls.execute(batch("c"));
        assertEquals(2, threadsStarted.size());
        threadsStarted.get(1).run();
        assertEquals(List.of("a", "c", "b"), events);
    }

    @Test
    void aDefectOfOneBatchIsToldAndTheOthersRun() {
        List<Throwable> told = new ArrayList<>();
        Thread.UncaughtExceptionHandler before = Thread.currentThread().getUncaughtExceptionHandler();
        Thread.currentThread().setUncaughtExceptionHandler((thread, failure) -> told.add(failure));
        try {
            calls.execute(() -> {
                throw new IllegalStateException("a defect");
            });
            calls.execute(batch("b"));
            threadsStarted.get(0).run();
        } finally {
            Thread.currentThread().setUncaughtExceptionHandler(before);
        }
        assertEquals(1, told.size());
        assertEquals(List.of("b"), events);
    }

    private Runnable batch(String name) {
        return () -> events.add(name);
    }

    /** Keeps the checks scheduled; the test fires them. */
    private static final class ManualScheduler extends ScheduledThreadPoolExecutor {
        final List<Runnable> checks = new ArrayList<>();
        final List<Long> delays = new ArrayList<>();

        ManualScheduler() {
            super(1);
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            checks.add(command);
            delays.add(unit.toNanos(delay));
            return super.schedule(() -> { }, 1, TimeUnit.DAYS);
        }

        void fireAll() {
            List<Runnable> due = new ArrayList<>(checks);
            checks.clear();
            due.forEach(Runnable::run);
        }
    }
}
