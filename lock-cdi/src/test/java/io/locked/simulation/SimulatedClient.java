package io.locked.simulation;

import io.locked.api.LockHandle;
import io.locked.api.LockRequest;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * One application thread of a simulated JVM: it runs the commands the simulation hands it, one at a
 * time, on a thread of its own (the core's thread scopes tell threads apart). Where calls never wait it
 * is a platform thread the simulation waits for after each command; where they may, a thread of the
 * {@link World} that stays busy while its call waits, as the simulation moves time on.
 *
 * <p>Its fields are only touched by its commands, or by the simulation while it is idle.
 */
final class SimulatedClient {
    private static final long CALL_BOUND_SECONDS = 30;
    final String name;
    final String jvm;
    LockHandle held;
    LockRequest request;
    long askedNanos;
    long enteredNanos;
    private final World world;
    private final ExecutorService lockstep;
    private Thread thread;
    private Runnable command;
    private volatile boolean busy;
    private volatile boolean stopped;
    private Throwable failure;

    SimulatedClient(String name, String jvm, World world) {
        this.name = name;
        this.jvm = jvm;
        this.world = world;
        if (world == null) {
            this.lockstep = Executors.newSingleThreadExecutor(runnable -> {
                Thread client = new Thread(runnable, "simulated-" + name);
                client.setDaemon(true);
                return client;
            });
        } else {
            this.lockstep = null;
            this.thread = world.start("simulated-" + name, this::serve);
        }
    }

    private void serve() {
        while (!stopped) {
            Runnable next;
            synchronized (this) {
                next = command;
                command = null;
            }
            if (next == null) {
                LockSupport.park(this);
                continue;
            }
            try {
                next.run();
            } catch (RuntimeException | Error unexpected) {
                synchronized (this) {
                    failure = unexpected;
                }
            } finally {
                busy = false;
            }
        }
    }

    /** @return whether a command of its runs or waits */
    boolean busy() {
        return busy;
    }

    /**
     * Hands it a command. Where calls never wait, returns once the command ran; where they may, once the
     * world is quiet again, the command done or waiting.
     */
    void run(Runnable next) {
        if (busy) {
            throw new IllegalStateException(name + " is still busy");
        }
        if (world == null) {
            try {
                lockstep.submit(next).get(CALL_BOUND_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException failed) {
                throw new IllegalStateException(name + ": " + failed.getCause(), failed.getCause());
            } catch (TimeoutException blocked) {
                throw new IllegalStateException(name + " was blocked for " + CALL_BOUND_SECONDS
                        + " s in a call that must not wait", blocked);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(interrupted);
            }
            return;
        }
        busy = true;
        synchronized (this) {
            command = next;
        }
        LockSupport.unpark(thread);
        world.runUntilQuiet();
        checkFailure();
    }

    /** Throws what a command of its threw and did not expect. */
    void checkFailure() {
        Throwable unexpected;
        synchronized (this) {
            unexpected = failure;
            failure = null;
        }
        if (unexpected != null) {
            throw new IllegalStateException(name + ": " + unexpected, unexpected);
        }
    }

    void stop() {
        stopped = true;
        if (lockstep != null) {
            lockstep.shutdownNow();
        } else {
            LockSupport.unpark(thread);
        }
    }
}
