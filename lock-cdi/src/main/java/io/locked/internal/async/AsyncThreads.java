package io.locked.internal.async;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The default threads of asynchronous acquisitions. Each waiting acquisition occupies one thread for its
 * whole wait (in this JVM's queue of the key, then at the database), so the pool must never make an
 * acquisition wait for a thread: that wait would come on top of the request's own, unbounded. A virtual
 * thread per acquisition where the JVM has them (Java 21+): a waiter then costs a small stack, not a
 * platform thread (the per-key queue parks outside any monitor, so waiters do not pin carriers). Before
 * Java 21, an unbounded pool of daemon platform threads whose idle threads end after a minute.
 */
public final class AsyncThreads {
    private static final String NAME = "locked-async-";

    private AsyncThreads() {
    }

    /** @return a new executor of the default kind; shut it down when its manager closes */
    public static ExecutorService newDefault() {
        ExecutorService virtual = virtualThreadPerTask();
        return virtual != null ? virtual : platformThreads();
    }

    /** @return whether {@link #newDefault()} gives virtual threads on this JVM */
    public static boolean virtualThreadsAvailable() {
        return virtualFactory() != null;
    }

    private static ExecutorService virtualThreadPerTask() {
        ThreadFactory factory = virtualFactory();
        if (factory == null) {
            return null;
        }
        try {
            return (ExecutorService) MethodHandles.publicLookup().findStatic(java.util.concurrent.Executors.class,
                    "newThreadPerTaskExecutor", MethodType.methodType(ExecutorService.class, ThreadFactory.class))
                    .invoke(factory);
        } catch (Throwable absent) {
            return null;
        }
    }

    // Thread.ofVirtual().name("locked-async-", 0).factory(), reached by reflection: compiled for Java 17
    private static ThreadFactory virtualFactory() {
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Class<?> builderType = Class.forName("java.lang.Thread$Builder");
            builder = builderType.getMethod("name", String.class, long.class).invoke(builder, NAME, 0L);
            return (ThreadFactory) builderType.getMethod("factory").invoke(builder);
        } catch (ReflectiveOperationException | LinkageError | UnsupportedOperationException absent) {
            return null;
        }
    }

    private static ExecutorService platformThreads() {
        AtomicInteger count = new AtomicInteger();
        ThreadFactory factory = task -> {
            Thread thread = new Thread(task, NAME + count.getAndIncrement());
            thread.setDaemon(true);
            return thread;
        };
        return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), factory);
    }
}
