package io.locked.internal.cdi;

import io.locked.api.event.LockAcquired;
import io.locked.api.event.LockLost;
import io.locked.api.event.LockNotAcquired;
import io.locked.api.event.LockReleased;
import io.locked.api.event.LockRenewalFailed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Fires the lock events; an observer's failure is logged and never changes the lock's outcome.
 * One typed {@link Event} per event type, injected once: the container resolves its observers on
 * the first fire and keeps them, where {@code Event<Object>.select(type)} would build a new event
 * and resolve again on every call of a locked method.
 */
@ApplicationScoped
public class LockEvents {
    private static final Logger LOG = Logger.getLogger(LockEvents.class.getName());
    private final Event<LockAcquired> acquired;
    private final Event<LockReleased> released;
    private final Event<LockNotAcquired> notAcquired;
    private final Event<LockLost> lost;
    private final Event<LockRenewalFailed> renewalFailed;

    /** For proxies. */
    protected LockEvents() {
        this(null, null, null, null, null);
    }

    @Inject
    LockEvents(Event<LockAcquired> acquired, Event<LockReleased> released, Event<LockNotAcquired> notAcquired,
               Event<LockLost> lost, Event<LockRenewalFailed> renewalFailed) {
        this.acquired = acquired;
        this.released = released;
        this.notAcquired = notAcquired;
        this.lost = lost;
        this.renewalFailed = renewalFailed;
    }

    void acquired(LockAcquired event) {
        fire(acquired, event);
    }

    void released(LockReleased event) {
        fire(released, event);
    }

    void notAcquired(LockNotAcquired event) {
        fire(notAcquired, event);
    }

    void lost(LockLost event) {
        fire(lost, event);
    }

    /**
     * On the watchdog's thread, while the method runs. The application may be stopping meanwhile (its
     * drain lets the method finish): nobody is left to tell then, and the renewals go on regardless.
     */
    void renewalFailed(LockRenewalFailed event) {
        try {
            fire(renewalFailed, event);
        } catch (IllegalStateException applicationStopped) {
            LOG.log(Level.FINE, "A renewal failure found the application stopped", applicationStopped);
        }
    }

    private static <T> void fire(Event<T> events, T event) {
        try {
            events.fire(event);
        } catch (RuntimeException observerFailure) {
            LOG.log(Level.WARNING, "An observer of " + event.getClass().getSimpleName() + " failed", observerFailure);
        }
    }
}
