package io.locked.internal.cdi;

import io.smallrye.mutiny.Uni;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Mutiny's side of {@code @Locked} methods that return a {@code Uni}. Loaded only when such a method is
 * called, so an application without Mutiny never loads it.
 */
final class MutinyLocking {
    private MutinyLocking() {
    }

    /**
     * @param locked starts the locked call: acquires, runs the method, and completes when the lock is released
     * @return a {@code Uni} that starts the locked call at each subscription, and cancels it when its
     *         subscriber cancels (a wait ends; a running method's {@code Uni} is cancelled, then the lock released)
     */
    static Uni<Object> lockedAtSubscription(Supplier<CompletableFuture<Object>> locked) {
        return Uni.createFrom().emitter(emitter -> {
            CompletableFuture<Object> call = locked.get();
            emitter.onTermination(() -> {
                if (!call.isDone()) {
                    call.cancel(false);
                }
            });
            call.whenComplete((item, failure) -> {
                if (failure != null) {
                    emitter.fail(failure);
                } else {
                    emitter.complete(item);
                }
            });
        });
    }

    /**
     * @param uni what the method returned
     * @return its outcome; cancelling it cancels the subscription
     */
    @SuppressWarnings("unchecked")
    static CompletableFuture<Object> subscribe(Object uni) {
        return ((Uni<Object>) uni).subscribeAsCompletionStage();
    }
}
