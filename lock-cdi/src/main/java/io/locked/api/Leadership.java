package io.locked.api;

import java.util.OptionalLong;

/**
 * A JVM's candidacy for a role that one JVM holds at a time: a cluster singleton, a leader. Made by
 * {@link LockManager#campaign}. The role is an optimistic lock on the role's name as key, renewed
 * while held; each time this JVM wins it, it begins a term whose fencing token is higher than every
 * earlier term's, in any JVM.
 *
 * <p>A leader whose lease ran out (its JVM paused longer than the lease, or cut off from the
 * database) is no longer leader from that moment: {@link #isLeader()} answers false as soon as the
 * JVM runs again, before it can act, and {@link LeadershipListener#lost} follows. Check
 * {@code isLeader()} before each act of leadership, and hand the {@link #term()} to resources that
 * check fencing tokens ({@code LockFence}). A killed leader is replaced once its lease has run out.
 * A leader counts its term a fifth of the lease (at most 2 s) shorter than the database keeps the
 * role, so that a leader that could not renew is told it lost the role before another can begin a term.
 */
public interface Leadership extends AutoCloseable {

    /** @return the role's name, which is also its lock key */
    String role();

    /**
     * @return whether this JVM holds the role right now: a term began and its lease is still valid,
     *         counted on this JVM's monotonic clock from the last confirmed renewal
     */
    boolean isLeader();

    /** @return the current term's fencing token while {@link #isLeader()}, else empty */
    OptionalLong term();

    /**
     * Gives the role up, if held (the next candidate may take it at once), and stops competing for
     * it. {@link LeadershipListener#lost} is told, with the reason "closed". A second call does nothing.
     */
    @Override
    void close();
}
