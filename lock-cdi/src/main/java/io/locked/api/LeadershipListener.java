package io.locked.api;

/**
 * Told when a {@link Leadership} begins and ends a term, on the candidacy's own thread, one call at
 * a time. A listener that throws is logged and changes nothing. Leader work belongs on threads of the
 * application's own, started by {@link #granted} and stopped by {@link #lost}; that work still checks
 * {@link Leadership#isLeader()} before each act, since {@code lost} may come after the term ended.
 */
public interface LeadershipListener {

    /**
     * This JVM holds the role, in a new term.
     *
     * @param leadership the candidacy, whose {@link Leadership#role()} it is
     * @param term       the term's fencing token, higher than every earlier term's
     */
    default void granted(Leadership leadership, long term) {
    }

    /**
     * This JVM's term ended: its lease ran out, or the candidacy was closed. Told before the role's
     * row is released: within a tenth of the lease (at most 1 s) of the term's end even when the
     * database cannot be reached, and before the next leader can begin: at close, and when the term
     * ran out, since the database keeps the role a fifth of the lease (at most 2 s) past the term's end
     * as this JVM counts it (unless this JVM was paused longer than that).
     *
     * @param leadership the candidacy
     * @param term       the ended term's token
     * @param reason     why, for the log
     */
    default void lost(Leadership leadership, long term, String reason) {
    }
}
