package io.locked.eeapp;

import io.locked.api.event.LockAcquired;
import io.locked.api.event.LockNotAcquired;
import io.locked.api.event.LockReleased;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.ArrayList;
import java.util.List;

/** Observes the lock events. */
@ApplicationScoped
public class LockEventLog {
    private final List<Object> events = new ArrayList<>();

    synchronized void acquired(@Observes LockAcquired event) {
        events.add(event);
    }

    synchronized void released(@Observes LockReleased event) {
        events.add(event);
    }

    synchronized void notAcquired(@Observes LockNotAcquired event) {
        events.add(event);
    }

    public synchronized <T> List<T> of(Class<T> type) {
        return events.stream().filter(type::isInstance).map(type::cast).toList();
    }
}
