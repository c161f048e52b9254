package io.locked.internal.async;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One blocking acquisition run on an async executor's thread, and the stage its caller holds. Cancelling
 * the stage interrupts the thread while it waits, which ends the wait; a hold that arrives after the
 * cancel (the acquisition had already got the row) is given back at once, never left to its lease.
 *
 * @param <T> what the acquisition yields
 */
final class AsyncAttempt<T> extends CompletableFuture<T> implements Runnable {
    private final Supplier<T> acquisition;
    private final Consumer<? super T> giveBack;
    // the thread waiting for the hold, guarded by this: an interrupt must never reach the thread after
    // it left this attempt (a pooled thread has moved on to another caller's wait by then)
    private Thread waiting;

    AsyncAttempt(Supplier<T> acquisition, Consumer<? super T> giveBack) {
        this.acquisition = acquisition;
        this.giveBack = giveBack;
    }

    @Override
    public void run() {
        synchronized (this) {
            if (isDone()) {
                return; // cancelled before it started: no wait, nothing to give back
            }
            waiting = Thread.currentThread();
        }
        T held;
        try {
            held = acquisition.get();
        } catch (Throwable failure) {
            leave();
            completeExceptionally(failure);
            return;
        }
        leave();
        if (!complete(held)) {
            giveBack.accept(held);
        }
    }

    private void leave() {
        synchronized (this) {
            waiting = null;
        }
        // an interrupt of a cancel that came after the hold was got: it was meant for the wait only
        Thread.interrupted();
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean cancelled = super.cancel(mayInterruptIfRunning);
        if (cancelled) {
            synchronized (this) {
                if (waiting != null) {
                    waiting.interrupt();
                }
            }
        }
        return cancelled;
    }
}
