package io.locked.eeapp.jobs;

import io.locked.api.Locked;
import io.locked.api.OnTimeout;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.inject.Inject;

/**
 * The form the usage guide warns against: {@code @Locked} on the EJB timeout method itself, kept to
 * show what a server does with it. WildFly deploys it and runs the timeout outside any lock (Locked's
 * interceptor is {@code @AroundInvoke} only, and a timeout is no business method call); so does
 * Payara Micro, whose Weld builds a serializable subclass of the interceptor for the EJB
 * ({@code _LockedInterceptor_Serializable}) with the interceptor's no-argument constructor (before
 * the interceptor had one, the bean could not be created: {@code NoSuchMethodError}).
 */
@Singleton
public class LockedTimeoutTicks {
    @Inject
    TickSwitch ticks;
    @Inject
    JobRuns runs;

    @Schedule(second = "*/2", minute = "*", hour = "*", persistent = false)
    @Locked(value = "tick:ejb-direct", maxWait = "0s", onTimeout = OnTimeout.SKIP, holdAtLeast = "1500ms")
    void direct() {
        if (ticks.armed()) {
            runs.record("ejb-direct");
        }
    }
}
