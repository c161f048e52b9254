package io.locked.internal.definition;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** How a locked method returns: what a skipped call gives back, and whether the lock outlives the call. */
public enum ReturnKind {
    /** {@code void} or {@code Void}: a skipped call returns null. */
    NOTHING,
    /** {@code Optional}: a skipped call returns {@code Optional.empty()}. */
    OPTIONAL,
    /** {@code CompletionStage<Void>} / {@code CompletableFuture<Void>}: held until it completes; skipping completes it at once. */
    STAGE_OF_VOID,
    /** Another {@code CompletionStage}: held until it completes; cannot be skipped. */
    STAGE,
    /** Any other value: cannot be skipped. */
    VALUE;

    /** @return the kind of the method's declared return type */
    public static ReturnKind of(Method method) {
        Class<?> type = method.getReturnType();
        if (type == void.class || type == Void.class) {
            return NOTHING;
        }
        if (type == Optional.class) {
            return OPTIONAL;
        }
        if (CompletionStage.class.isAssignableFrom(type)) {
            Type generic = method.getGenericReturnType();
            boolean ofVoid = generic instanceof ParameterizedType parameterized
                    && parameterized.getActualTypeArguments()[0] == Void.class;
            boolean assignableFromCompletableFuture = type.isAssignableFrom(CompletableFuture.class);
            if (!assignableFromCompletableFuture) {
                return VALUE; // a custom stage type we could not hand back wrapped
            }
            return ofVoid ? STAGE_OF_VOID : STAGE;
        }
        return VALUE;
    }

    /** @return whether {@code OnTimeout.SKIP} can give this kind a result */
    public boolean canSkip() {
        return this == NOTHING || this == OPTIONAL || this == STAGE_OF_VOID;
    }

    /** @return what a skipped call returns */
    public Object skippedResult() {
        return switch (this) {
            case OPTIONAL -> Optional.empty();
            case STAGE_OF_VOID -> CompletableFuture.completedFuture(null);
            default -> null;
        };
    }

    /** @return whether the lock is held until a returned stage completes */
    public boolean isAsync() {
        return this == STAGE || this == STAGE_OF_VOID;
    }
}
