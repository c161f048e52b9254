package io.locked.eeapp.payara;

import io.locked.api.LockManager;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Shutdown;
import jakarta.inject.Inject;
import jakarta.interceptor.Interceptor;

/**
 * What a Payara application adds so that its locks and roles move at once when the instance stops.
 * Payara Micro tells the application's own classes (WEB-INF/classes) that it stops while the
 * datasource still gives connections, but Locked's own observers (in WEB-INF/lib) only about 10 s
 * later, once the datasource is gone: their releases fail, and keys and roles wait for their leases.
 * Closing the lock manager here drains it in time: running holders finish and release, roles are given
 * up. Locked's own close comes later and finds nothing left to do.
 */
@ApplicationScoped
public class ReleaseLocksAtShutdown {
    @Inject
    LockManager locks;

    void stopping(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) Shutdown stopping) {
        locks.close();
    }
}
