package io.locked.api.event;

/**
 * This JVM's term in a role named in {@code locked.leadership.roles} ended: its lease ran out (a
 * pause, a lost database) or the application is stopping. Fired on the candidacy's thread.
 *
 * @param role   the role
 * @param term   the ended term's token
 * @param reason why
 */
public record LeadershipLost(String role, long term, String reason) {
}
