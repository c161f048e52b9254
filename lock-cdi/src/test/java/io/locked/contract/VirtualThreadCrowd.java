package io.locked.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.internal.exclusive.KeyTurns;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A crowd of virtual threads waiting for one key that this thread holds: once every one of them waits in the
 * JVM's queue of the key (counted in a thread dump), the heap they retain is measured, the key is released,
 * and each must be served in turn, one holder at a time (a counter of the holders in the critical section),
 * with no wait pinned to a carrier thread (Flight Recorder's {@code jdk.VirtualThreadPinned}). Two carriers
 * on a two-core machine: two pinned waiters would starve the crowd, and the run would not end.
 */
public final class VirtualThreadCrowd {
    /** The frame of a thread parked in the JVM's queue of a key. */
    static final String QUEUED_FRAME = KeyTurns.class.getName() + ".waitForTurn";
    /** How long the crowd may take to queue, and then to be served: a hang's bound, far above a slow machine's. */
    private static final Duration PATIENCE = Duration.ofMinutes(5);
    /**
     * The most heap one waiter may retain: its parked stack (some thirty frames on the manager's calls, twice that
     * through Weld's proxy and interceptor chain) and its queue entry. A few KB are measured.
     */
    public static final long HEAP_PER_WAITER_LIMIT = 16 * 1024;
    private final LockManager locks;
    private final LockRequest request;
    private final AtomicInteger holders = new AtomicInteger();
    private final AtomicInteger mostHolders = new AtomicInteger();
    private final AtomicInteger served = new AtomicInteger();
    private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();

    /** How one waiter asks for the key and runs the critical section while it holds it. */
    @FunctionalInterface
    public interface Waiter {
        void await(Runnable criticalSection) throws Exception;
    }

    /**
     * What the crowd saw.
     *
     * @param waiters            how many waited
     * @param served             how many ran the critical section
     * @param mostHoldersAtOnce  the most threads in the critical section at once
     * @param heapBytesPerWaiter the heap retained while they all waited, after a collection, per waiter
     * @param pinned             each wait pinned to its carrier
     * @param failures           what the waiters threw
     */
    public record Outcome(int waiters, int served, int mostHoldersAtOnce, long heapBytesPerWaiter,
                          List<PinnedThreads.Pinning> pinned, List<Throwable> failures) {
        /** @return the measures, for the test's output */
        public String summary() {
            return String.format("%,d waiters, %,d bytes of heap each, %d waits pinned (%d while the JVM linked)", waiters,
                    heapBytesPerWaiter, pinned.size(), pinned.stream().filter(PinnedThreads.Pinning::linking).count());
        }

        /**
         * Asserts every waiter was served, one at a time, and none was pinned but while the JVM linked a call site
         * or class for the first time.
         */
        public void assertAllServedOneAtATimeUnpinned() {
            failures.forEach(Throwable::printStackTrace);
            assertEquals(List.of(), failures.stream().map(Throwable::toString).toList(), "the waiters failed");
            assertEquals(waiters, served, "waiters served");
            assertEquals(1, mostHoldersAtOnce, "the most holders in the critical section at once");
            assertEquals(List.of(), pinned.stream().filter(pinning -> !pinning.linking()).map(PinnedThreads.Pinning::stack)
                    .toList(), "waits pinned to their carrier thread");
        }
    }

    /**
     * Asserts both crowds were served one at a time, unpinned, each waiter within {@link #HEAP_PER_WAITER_LIMIT},
     * and prints their measures.
     *
     * @param what what waited, and how
     */
    public static void assertServedInConstantMemory(String what, Outcome small, Outcome large) {
        System.out.printf("[virtual threads] %s: %s; %s%n", what, small.summary(), large.summary());
        small.assertAllServedOneAtATimeUnpinned();
        large.assertAllServedOneAtATimeUnpinned();
        for (Outcome outcome : List.of(small, large)) {
            assertTrue(outcome.heapBytesPerWaiter() <= HEAP_PER_WAITER_LIMIT, what + ": " + outcome.heapBytesPerWaiter()
                    + " bytes of heap per waiter with " + outcome.waiters() + " waiters, more than " + HEAP_PER_WAITER_LIMIT);
        }
    }

    private VirtualThreadCrowd(LockManager locks, LockRequest request) {
        this.locks = locks;
        this.request = request;
    }

    /** Each of the crowd's virtual threads calls {@link LockManager#acquire} itself. */
    public static Outcome blocking(LockManager locks, LockRequest request, int waiters) throws InterruptedException {
        return blocking(locks, request, waiters, section -> {
            try (LockHandle ignored = locks.acquire(request)) {
                section.run();
            }
        });
    }

    /**
     * Each of the crowd's virtual threads calls the waiter, which acquires the key as {@code request} (its key and
     * mode) does: a {@code @Locked} method, say.
     */
    public static Outcome blocking(LockManager locks, LockRequest request, int waiters, Waiter waiter)
            throws InterruptedException {
        VirtualThreadCrowd crowd = new VirtualThreadCrowd(locks, request);
        ThreadFactory threads = VirtualThreads.factory("crowd-");
        return crowd.run(waiters, done -> {
            for (int i = 0; i < waiters; i++) {
                threads.newThread(() -> {
                    try {
                        waiter.await(crowd::criticalSection);
                    } catch (Throwable failure) {
                        crowd.failures.add(failure);
                    } finally {
                        done.countDown();
                    }
                }).start();
            }
        });
    }

    /** This thread calls {@link LockManager#acquireAsync} for each of the crowd: the waits are the manager's threads. */
    public static Outcome async(LockManager locks, LockRequest request, int waiters) throws InterruptedException {
        VirtualThreadCrowd crowd = new VirtualThreadCrowd(locks, request);
        return crowd.run(waiters, done -> {
            for (int i = 0; i < waiters; i++) {
                locks.acquireAsync(request).whenComplete((handle, failure) -> {
                    try {
                        if (failure != null) {
                            crowd.failures.add(failure);
                        } else {
                            try (handle) {
                                crowd.criticalSection();
                            }
                        }
                    } catch (Throwable thrown) {
                        crowd.failures.add(thrown);
                    } finally {
                        done.countDown();
                    }
                });
            }
        });
    }

    private interface Start {
        void start(CountDownLatch done);
    }

    private Outcome run(int waiters, Start start) throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        CountDownLatch done = new CountDownLatch(waiters);
        long heapPerWaiter;
        List<PinnedThreads.Pinning> pinned;
        try (PinnedThreads pinning = PinnedThreads.record()) {
            try (LockHandle held = locks.acquire(request)) {
                long before = heapAfterCollection(memory);
                start.start(done);
                // a pessimistic turn beside the holder's waits at the store, not in the queue
                int queued = waiters - (request.mode() == LockMode.PESSIMISTIC ? KeyTurns.PESSIMISTIC_TURNS - 1 : 0);
                Await.until(() -> VirtualThreads.withFrame(QUEUED_FRAME) >= queued, PATIENCE,
                        queued + " virtual threads queued for " + request.key());
                heapPerWaiter = (heapAfterCollection(memory) - before) / waiters;
                assertEquals(0, served.get(), "served while the key was held");
            }
            if (!done.await(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)) {
                failures.add(new AssertionError(done.getCount() + " of " + waiters + " still waiting after " + PATIENCE
                        + ": carrier threads starved?"));
            }
            pinned = pinning.stop();
        }
        return new Outcome(waiters, served.get(), mostHolders.get(), heapPerWaiter, pinned, List.copyOf(failures));
    }

    private void criticalSection() {
        int now = holders.incrementAndGet();
        mostHolders.accumulateAndGet(now, Math::max);
        Thread.yield(); // were the lock broken, another holder would come in here
        holders.decrementAndGet();
        served.incrementAndGet();
    }

    private static long heapAfterCollection(MemoryMXBean memory) {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            memory.gc();
            least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
        }
        return least;
    }
}
