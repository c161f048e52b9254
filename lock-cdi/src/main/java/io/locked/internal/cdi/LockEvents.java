package io.locked.internal.cdi;

import io.locked.api.event.LockAcquired;
import io.locked.api.event.LockLost;
import io.locked.api.event.LockNotAcquired;
import io.locked.api.event.LockReleased;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Fires the lock events; an observer's failure is logged and never changes the lock's outcome. */
@ApplicationScoped
public class LockEvents {
    private static final Logger LOG = Logger.getLogger(LockEvents.class.getName());
    private final Event<Object> events;

    /** For proxies. */
    protected LockEvents() {
        this.events = null;
    }

    @Inject
    LockEvents(Event<Object> events) {
        this.events = events;
    }

    void acquired(LockAcquired event) {
        fire(LockAcquired.class, event);
    }

    void released(LockReleased event) {
        fire(LockReleased.class, event);
    }

    void notAcquired(LockNotAcquired event) {
        fire(LockNotAcquired.class, event);
    }

    void lost(LockLost event) {
        fire(LockLost.class, event);
    }

    private <T> void fire(Class<T> type, T event) {
        try {
            events.select(type).fire(event);
        } catch (RuntimeException observerFailure) {
            LOG.log(Level.WARNING, "An observer of " + type.getSimpleName() + " failed", observerFailure);
        }
    }
}
