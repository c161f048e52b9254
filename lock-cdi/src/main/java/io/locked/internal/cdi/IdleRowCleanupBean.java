package io.locked.internal.cdi;

import io.locked.api.LockManager;
import io.locked.internal.definition.CleanupSettings;
import io.locked.internal.operations.IdleRowCleanup;
import io.locked.spi.LockRepository;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import java.util.Optional;

/**
 * Starts the scheduled cleanup of idle lock rows when the application starts, if
 * {@code locked.cleanup.every} is set, and stops it before the application's beans are destroyed
 * (so before the {@link LockManager} it locks through is closed). The settings were checked while
 * the container booted, by the extensions.
 */
@ApplicationScoped
public class IdleRowCleanupBean {
    private IdleRowCleanup cleanup;

    synchronized void start(@Observes @Initialized(ApplicationScoped.class) Object started,
                            Instance<LockManager> locks, Instance<LockRepository> repository) {
        Optional<CleanupSettings> settings = CleanupSettings.from(ConfiguredSettings.current());
        if (settings.isEmpty() || cleanup != null) {
            return;
        }
        cleanup = new IdleRowCleanup(locks.get(), repository.get(), settings.get());
        cleanup.start();
    }

    void stopping(@Observes @BeforeDestroyed(ApplicationScoped.class) Object stopping) {
        stop();
    }

    @PreDestroy
    synchronized void stop() {
        if (cleanup != null) {
            cleanup.close();
            cleanup = null;
        }
    }
}
