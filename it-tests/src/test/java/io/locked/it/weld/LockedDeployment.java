package io.locked.it.weld;

import io.locked.internal.cdi.LockEvents;
import io.locked.internal.cdi.LockManagerProducer;
import io.locked.internal.cdi.LockedExtension;
import io.locked.internal.cdi.LockedInterceptor;
import io.locked.internal.cdi.LockedMethods;
import io.locked.jpa.cdi.JpaLockStoreProducer;
import org.jboss.weld.environment.se.Weld;

/**
 * A Weld SE container with the library as a deployment sees it (interceptor, extension, producers)
 * plus the scenario's own beans, on the test lock store. The interceptor is enabled by its
 * {@code @Priority} alone, as in a real deployment.
 */
public final class LockedDeployment {
    private LockedDeployment() {
    }

    /** @return a Weld builder with the library and the given beans, discovery off */
    public static Weld with(Class<?>... beans) {
        return new Weld()
                .disableDiscovery()
                .addExtension(new LockedExtension())
                .addBeanClasses(LockedInterceptor.class, LockedMethods.class, LockEvents.class, LockManagerProducer.class,
                        JpaLockStoreProducer.class, TestLockStore.class, EventLog.class)
                .addBeanClasses(beans);
    }
}
