package io.locked.internal.cdi;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Vetoed;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.DeploymentException;
import java.util.logging.Logger;
import javax.naming.NamingException;

/**
 * Creates the lock store when the application starts, so that a store that cannot be created, or a
 * mode it refuses, fails the deployment rather than the first call. Added by {@link LockedExtension}
 * (Weld, WildFly, Payara), which lifts the veto and makes it application-scoped. Vetoed by itself, so
 * that Quarkus, which runs no portable extension and would take any class with an observer method for
 * a bean, never sees it; there the store is created at its first use.
 */
@Vetoed
public class LockStoreStartupCheck {
    private static final Logger LOG = Logger.getLogger(LockStoreStartupCheck.class.getName());

    void verify(@Observes @Initialized(ApplicationScoped.class) Object started, LockedExtension extension, BeanManager beans) {
        try {
            extension.verifyLockStore(beans);
        } catch (DeploymentException failure) {
            if (!namingNotReady(failure)) {
                throw failure;
            }
            // Payara injects the application's resources (its @PersistenceUnit) only after CDI started:
            // the store is created, and its unit checked, at the first lock instead
            LOG.info(() -> "Locked will create its lock store at the first lock: the server cannot inject the"
                    + " application's resources yet (" + failure.getMessage() + ")");
        }
    }

    private static boolean namingNotReady(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof NamingException) {
                return true;
            }
        }
        return false;
    }
}
