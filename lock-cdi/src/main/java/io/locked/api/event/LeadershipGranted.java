package io.locked.api.event;

import io.locked.api.Leadership;

/**
 * This JVM holds a role named in {@code locked.leadership.roles}, in a new term. Fired on the
 * candidacy's thread; keep the {@link Leadership} to ask {@link Leadership#isLeader()} before each
 * act of leadership.
 *
 * @param role       the role
 * @param term       the term's fencing token, higher than every earlier term's
 * @param leadership this JVM's candidacy for the role
 */
public record LeadershipGranted(String role, long term, Leadership leadership) {
}
