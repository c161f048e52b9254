package io.locked.internal.definition;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

/** How a locked method returns: what a skipped call gives back, and whether the lock outlives the call. */
public enum ReturnKind {
    /** {@code void} or {@code Void}: a skipped call returns null. */
    NOTHING,
    /** {@code Optional}: a skipped call returns {@code Optional.empty()}. */
    OPTIONAL,
    /** {@code CompletionStage<Void>} / {@code CompletableFuture<Void>}: held until it completes; skipping completes it at once. */
    STAGE_OF_VOID,
    /** Another {@code CompletionStage} or {@code CompletableFuture}: held until it completes; cannot be skipped. */
    STAGE,
    /** Mutiny's {@code Uni<Void>}: locked when subscribed, held until it terminates; skipping emits a null item. */
    UNI_OF_VOID,
    /** Another Mutiny {@code Uni}: locked when subscribed, held until it terminates; cannot be skipped. */
    UNI,
    /**
     * Declared {@code Object}: decided per call. A {@code CompletionStage} result is held until it
     * completes; a result whose work may outlive the call in another form is refused (see
     * {@link #asyncKindOf(Class)}); anything else is a plain value. Cannot be skipped.
     */
    DYNAMIC,
    /** Any other value: cannot be skipped. */
    VALUE,
    /** A result whose work outlives the call in a form the lock cannot follow: fails the deployment. */
    UNSUPPORTED;

    private static final String UNI_TYPE = "io.smallrye.mutiny.Uni";
    /** The Mutiny type that is refused with a word of its own: a stream, held until when? */
    public static final String MULTI_TYPE = "io.smallrye.mutiny.Multi";
    // async types recognised by name, so that neither library is a dependency
    private static final List<String> OTHER_ASYNC_TYPES = List.of("io.smallrye.mutiny.Uni", "io.smallrye.mutiny.Multi",
            "org.reactivestreams.Publisher", "java.util.concurrent.Flow$Publisher");

    /** @return the kind of the method's declared return type */
    public static ReturnKind of(Method method) {
        Class<?> type = method.getReturnType();
        if (type == void.class || type == Void.class) {
            return NOTHING;
        }
        if (type == Optional.class) {
            return OPTIONAL;
        }
        if (type == Object.class) {
            return DYNAMIC;
        }
        if (type.getName().equals(UNI_TYPE)) {
            return ofVoid(method) ? UNI_OF_VOID : UNI;
        }
        if (CompletionStage.class.isAssignableFrom(type)) {
            if (!type.isAssignableFrom(CompletableFuture.class)) {
                return UNSUPPORTED; // a stage type of its own, which we could not hand back wrapped
            }
            return ofVoid(method) ? STAGE_OF_VOID : STAGE;
        }
        return asyncKindOf(type) != null ? UNSUPPORTED : VALUE;
    }

    private static boolean ofVoid(Method method) {
        Type generic = method.getGenericReturnType();
        return generic instanceof ParameterizedType parameterized && parameterized.getActualTypeArguments()[0] == Void.class;
    }

    /**
     * @param type a declared or actual result type
     * @return the name of the async type it is, other than {@code CompletionStage}, or null: a
     *         {@code Future}, a Reactive Streams or {@code Flow} publisher, a Mutiny {@code Uni} or {@code Multi}
     */
    public static String asyncKindOf(Class<?> type) {
        if (Future.class.isAssignableFrom(type)) {
            return Future.class.getName();
        }
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            String found = asyncInterface(c);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    private static String asyncInterface(Class<?> type) {
        if (OTHER_ASYNC_TYPES.contains(type.getName())) {
            return type.getName();
        }
        for (Class<?> implemented : type.getInterfaces()) {
            String found = asyncInterface(implemented);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    /** @return whether {@code OnTimeout.SKIP} can give this kind a result */
    public boolean canSkip() {
        return this == NOTHING || this == OPTIONAL || this == STAGE_OF_VOID || this == UNI_OF_VOID;
    }

    /** @return what a skipped call returns; for a {@code Uni}, the item it emits */
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

    /** @return whether the method returns a {@code Uni}, locked on subscription and held until it terminates */
    public boolean isUni() {
        return this == UNI || this == UNI_OF_VOID;
    }
}
