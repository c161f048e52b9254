package io.locked.it.weld;

import io.locked.api.event.LockAcquired;
import io.locked.api.event.LockLost;
import io.locked.api.event.LockNotAcquired;
import io.locked.api.event.LockReleased;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.ArrayList;
import java.util.List;

/** Observes every lock event of a scenario, in order. */
@ApplicationScoped
public class EventLog {
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

    synchronized void lost(@Observes LockLost event) {
        events.add(event);
    }

    /** @return the events of one type, in order */
    public synchronized <T> List<T> of(Class<T> type) {
        return events.stream().filter(type::isInstance).map(type::cast).toList();
    }
}
