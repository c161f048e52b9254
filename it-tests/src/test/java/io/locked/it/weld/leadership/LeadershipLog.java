package io.locked.it.weld.leadership;

import io.locked.api.event.LeadershipGranted;
import io.locked.api.event.LeadershipLost;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** An application's observers of the leadership events, as users write them. */
@ApplicationScoped
public class LeadershipLog {
    private final List<LeadershipGranted> granted = new CopyOnWriteArrayList<>();
    private final List<LeadershipLost> lost = new CopyOnWriteArrayList<>();

    void onGranted(@Observes LeadershipGranted event) {
        granted.add(event);
    }

    void onLost(@Observes LeadershipLost event) {
        lost.add(event);
    }

    // read through the client proxy: methods, not fields
    public List<LeadershipGranted> granted() {
        return granted;
    }

    public List<LeadershipLost> lost() {
        return lost;
    }
}
