package io.locked.simulation;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;

/** The watchdog's call threads in the simulation: each check or renewal runs at once, on the thread that started it. */
final class DirectCalls extends AbstractExecutorService {
    private volatile boolean shutdown;
    private final java.util.List<String> escaped = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public void execute(Runnable command) {
        if (shutdown) {
            throw new java.util.concurrent.RejectedExecutionException("closed");
        }
        try {
            command.run();
        } catch (RuntimeException | Error failure) {
            // on a real pool this ends the call's thread and is printed to stderr: the core lets nothing escape
            escaped.add(failure.toString());
        }
    }

    /** @return what escaped the calls: each one a defect of the core */
    java.util.List<String> escaped() {
        return escaped;
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return shutdown;
    }
}
