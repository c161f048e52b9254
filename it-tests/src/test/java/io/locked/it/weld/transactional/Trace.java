package io.locked.it.weld.transactional;

import io.locked.api.event.LockAcquired;
import io.locked.api.event.LockReleased;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.ArrayList;
import java.util.List;

/** What happened on the calling thread, in order: lock events and transaction boundaries. */
@ApplicationScoped
public class Trace {
    private final ThreadLocal<List<String>> steps = ThreadLocal.withInitial(ArrayList::new);

    void add(String step) {
        steps.get().add(step);
    }

    void acquired(@Observes LockAcquired event) {
        add("lock-acquired");
    }

    void released(@Observes LockReleased event) {
        add("lock-released");
    }

    /** @return this thread's steps, then forgets them */
    public List<String> takeSteps() {
        List<String> taken = List.copyOf(steps.get());
        steps.get().clear();
        return taken;
    }
}
