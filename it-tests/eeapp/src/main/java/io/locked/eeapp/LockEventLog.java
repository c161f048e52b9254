package io.locked.eeapp;

import io.locked.api.event.LockNotAcquired;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The lock events the configuration test reads. */
@ApplicationScoped
public class LockEventLog {
    private final List<LockNotAcquired> notAcquired = new CopyOnWriteArrayList<>();

    void notAcquired(@Observes LockNotAcquired event) {
        notAcquired.add(event);
    }

    public List<LockNotAcquired> notAcquired() {
        return List.copyOf(notAcquired);
    }
}
