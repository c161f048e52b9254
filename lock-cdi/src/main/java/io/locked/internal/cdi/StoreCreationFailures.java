package io.locked.internal.cdi;

import java.util.Objects;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What the application's timers are told when the lock store cannot be created. A server may go on
 * firing the EJB timers of an application whose deployment failed (WildFly does), and each tick
 * would create the store again and fail again the same way: the cause is logged in full once, and
 * the ticks that fail for the same cause after it are logged at FINE, until the cause changes or the
 * store comes up, after which a failure is news again. No bean: applications that list their bean
 * classes (Weld SE's synthetic archives) need not list it.
 */
final class StoreCreationFailures {
    private static final Logger LOG = Logger.getLogger(StoreCreationFailures.class.getName());
    /** One per application: lock-cdi's classes are the application's own (WEB-INF/lib), as is this state. */
    static final StoreCreationFailures OF_THIS_APPLICATION = new StoreCreationFailures();
    private volatile String lastCause; // read without the lock by storeUp, at every tick

    /**
     * @param method  the {@code @Locked} method whose run is skipped
     * @param failure why the store could not be created
     */
    synchronized void skipped(String method, RuntimeException failure) {
        String cause = causeOf(failure);
        if (Objects.equals(cause, lastCause)) {
            LOG.fine(() -> "Skipped " + method + ": the lock store still cannot be created (" + cause + ")");
            return;
        }
        lastCause = cause;
        LOG.log(Level.SEVERE, failure, () -> "Locked cannot create its lock store, so the scheduled run of " + method
                + " was skipped: " + cause + ". Runs that fail for this same cause are logged at FINE from now on,"
                + " until the cause changes or the store comes up.");
    }

    /** The store answered: the next failure, whatever its cause, is logged in full. */
    void storeUp() {
        if (lastCause != null) {
            synchronized (this) {
                lastCause = null;
            }
        }
    }

    // the innermost exception says what is wrong (no table, connection refused); the outer ones say where
    private static String causeOf(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getName() + ": " + root.getMessage();
    }
}
