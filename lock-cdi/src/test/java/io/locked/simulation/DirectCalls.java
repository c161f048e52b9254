package io.locked.simulation;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The watchdog's call threads in the simulation: each check or renewal runs at once, on the thread that
 * started it, or, where the simulation has waiting threads, on a thread of its {@link World} of its own.
 */
final class DirectCalls extends AbstractExecutorService {
    private final World world;
    private final String name;
    private final List<String> escaped = new CopyOnWriteArrayList<>();
    private volatile boolean shutdown;

    /**
     * @param world where a call runs on a thread of its own, or null to run it at once
     * @param name  the calls' thread name, which says whose JVM they are
     */
    DirectCalls(World world, String name) {
        this.world = world;
        this.name = name;
    }

    @Override
    public void execute(Runnable command) {
        if (shutdown) {
            throw new RejectedExecutionException("closed");
        }
        Runnable guarded = () -> {
            try {
                command.run();
            } catch (RuntimeException | Error failure) {
                // on a real pool this ends the call's thread and is printed to stderr: the core lets nothing escape
                escaped.add(failure.toString());
            }
        };
        if (world == null) {
            guarded.run();
        } else {
            world.start(name, guarded);
        }
    }

    /** @return what escaped the calls: each one a defect of the core */
    List<String> escaped() {
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
