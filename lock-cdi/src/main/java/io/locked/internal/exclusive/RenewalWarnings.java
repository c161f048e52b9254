package io.locked.internal.exclusive;

import io.locked.api.event.LockRenewalFailed;
import io.locked.internal.base.LockLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The listeners of an acquisition's failed renewals ({@link io.locked.api.LockHandle#onRenewalFailure}),
 * kept as one value that is replaced on each addition: null, the one listener (what a {@code @Locked}
 * method adds, without an allocation), or an unmodifiable list of them.
 */
final class RenewalWarnings {
    private RenewalWarnings() {
    }

    /**
     * @return the listeners {@code current} stands for, and {@code listener} after them unless it is one of
     *         them already: the readers of a JVM share one reader slot, and each {@code @Locked} read adds its
     *         interceptor's listener to it, which must neither pile up nor be told twice
     */
    static Object add(Object current, Consumer<? super LockRenewalFailed> listener) {
        Objects.requireNonNull(listener, "listener");
        if (current == null) {
            return listener;
        }
        if (current == listener || current instanceof List<?> several && several.stream().anyMatch(one -> one == listener)) {
            return current;
        }
        List<Object> more = new ArrayList<>();
        if (current instanceof List<?> several) {
            more.addAll(several);
        } else {
            more.add(current);
        }
        more.add(listener);
        return List.copyOf(more);
    }

    /** Tells each listener; a listener's failure is logged and changes nothing. */
    static void tell(Object listeners, LockRenewalFailed warning, String rowKey) {
        if (listeners instanceof List<?> several) {
            several.forEach(listener -> tellOne(listener, warning, rowKey));
        } else if (listeners != null) {
            tellOne(listeners, warning, rowKey);
        }
    }

    @SuppressWarnings("unchecked")
    private static void tellOne(Object listener, LockRenewalFailed warning, String rowKey) {
        try {
            ((Consumer<? super LockRenewalFailed>) listener).accept(warning);
        } catch (RuntimeException listenerFailure) {
            LockLog.listenerFailed(rowKey, "renewal failure", listenerFailure);
        }
    }
}
