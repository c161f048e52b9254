package io.locked.internal.cdi;

import io.locked.api.Leadership;
import io.locked.api.LeadershipListener;
import io.locked.api.LockManager;
import io.locked.api.event.LeadershipGranted;
import io.locked.api.event.LeadershipLost;
import io.locked.internal.definition.LeadershipSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The CDI form of {@link LockManager#campaign}: when the application starts, campaigns for each role
 * of {@code locked.leadership.roles} and fires {@link LeadershipGranted} and {@link LeadershipLost}.
 * The candidacies end with the lock manager, which closes them first at shutdown, so the roles move
 * at once. Without roles it does nothing, and creates no lock manager.
 */
@ApplicationScoped
public class LeadershipRoles {
    private static final Logger LOG = Logger.getLogger(LeadershipRoles.class.getName());
    private final Map<String, Leadership> candidacies = new ConcurrentHashMap<>();

    @Inject
    Instance<LockManager> locks;

    @Inject
    Event<LeadershipGranted> granted;

    @Inject
    Event<LeadershipLost> lost;

    void start(@Observes Startup started) {
        LeadershipSettings settings = LeadershipSettings.from(ConfiguredSettings.current());
        for (String role : settings.roles()) {
            candidacies.computeIfAbsent(role, name -> locks.get().campaign(name, settings.lease(), new LeadershipListener() {
                @Override
                public void granted(Leadership leadership, long term) {
                    fire(() -> LeadershipRoles.this.granted.fire(new LeadershipGranted(leadership.role(), term, leadership)));
                }

                @Override
                public void lost(Leadership leadership, long term, String reason) {
                    fire(() -> LeadershipRoles.this.lost.fire(new LeadershipLost(leadership.role(), term, reason)));
                }
            }));
        }
    }

    private static void fire(Runnable event) {
        try {
            event.run();
        } catch (RuntimeException observerFailed) {
            LOG.log(Level.WARNING, "An observer of a leadership event failed", observerFailed);
        }
    }
}
