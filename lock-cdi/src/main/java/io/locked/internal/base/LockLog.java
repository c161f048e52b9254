package io.locked.internal.base;

import io.locked.api.LockMode;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What the lock logs, through {@code java.util.logging} (which WildFly, Payara and Quarkus route to
 * their own logging), on the logger {@code io.locked}: a lost lock and a store failure at WARNING,
 * naming the key and the holder; acquisitions and releases at FINE; nothing per call at INFO (a release sent
 * again after an outage met it is an outage's, not a call's).
 */
public final class LockLog {
    static final Logger LOG = Logger.getLogger("io.locked");

    private LockLog() {
    }

    /** Whether calls are logged: checked before measuring what only the log would use. */
    public static boolean fine() {
        return LOG.isLoggable(Level.FINE);
    }

    public static void acquired(String key, LockMode mode, long token, String holder, long waitedNanos) {
        LOG.fine("Acquired '" + key + "' " + mode + " with token " + token + " after " + waitedNanos / 1_000_000
                + " ms, held by " + holder);
    }

    public static void released(String key, LockMode mode, long token) {
        if (fine()) {
            LOG.fine("Released '" + key + "' " + mode + " with token " + token);
        }
    }

    /**
     * At INFO, once per outage that met a release: the key is free again (or was already another's).
     *
     * @param sent     how many times the release was sent
     * @param released whether the lease was still there to free
     */
    public static void releasedAfterFailure(String key, long token, String holder, int sent, boolean released) {
        LOG.info("The release of '" + key + "' with token " + token + ", held by " + holder + ", failed with the store;"
                + " sent again, " + sent + " sends in all, it " + (released ? "freed the key"
                        : "found the lease already run out or taken over"));
    }

    public static void stillHeldAtClose(int locks, java.time.Duration waited) {
        LOG.warning("Closing the lock manager: " + locks + " lock(s) still held after waiting " + waited
                + " for their holders; optimistic leases are no longer renewed and expire, pessimistic locks"
                + " end when their holders release them or their sessions end");
    }

    public static void lost(String key, LockMode mode, long token, String holder, String reason) {
        LOG.warning("Lock '" + key + "' " + mode + " with token " + token + ", held by " + holder + ", was lost: " + reason);
    }

    public static void forcedRelease(String place, LockMode mode, Long token, String holder, String session) {
        LOG.warning("Forced release of " + place + " " + mode + " with token " + (token == null ? "unknown" : token)
                + ", held by " + (holder == null ? "an unknown holder" : holder)
                + (session == null ? "" : " in database session " + session) + ": the holder loses it");
    }

    /**
     * At WARNING: a short first line naming the key, the holder and the innermost cause (an outage
     * repeats it often), then one line per cause, each without the text of the cause below it that
     * its message repeats; the stack trace at FINE.
     */
    public static void listenerFailed(String key, String listener, RuntimeException failure) {
        LOG.log(Level.WARNING, "A " + listener + " listener of lock '" + key + "' failed", failure);
    }

    public static void storeFailed(String key, String holder, String what, RuntimeException failure) {
        if (!LOG.isLoggable(Level.WARNING)) {
            return;
        }
        String message = storeFailure(key, holder, what, failure);
        LOG.warning(message);
        LOG.log(Level.FINE, message, failure);
    }

    public static String storeFailure(String key, String holder, String what, Throwable failure) {
        Throwable root = failure;
        StringBuilder causes = new StringBuilder();
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            root = cause;
            String text = String.valueOf(cause.getMessage());
            Throwable next = cause.getCause();
            if (next != null && next != cause) {
                text = text.replace(" (" + next + ")", "").replace(next.toString(), "...");
            }
            causes.append(causes.isEmpty() ? "\n  " : "\n  caused by ").append(cause.getClass().getName()).append(": ")
                    .append(text);
        }
        return "Lock store failed " + what + " '" + key + "' for " + holder + ": " + root + causes;
    }
}
