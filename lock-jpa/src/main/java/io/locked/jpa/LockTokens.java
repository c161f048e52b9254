package io.locked.jpa;

/**
 * How a pessimistic acquisition's fencing token is kept: {@code locked.tokens} in configuration,
 * {@link JpaLockRepository.Builder#tokens(LockTokens)} in code. Either way the token is drawn after
 * the row lock was granted as the greater of the row's last token plus one and the database's
 * clock in microseconds, and the lock statement writes it into the row for as long as the hold
 * lasts (inspection and forced release see the holder there). The two differ at the release.
 * Leases (the optimistic mode) are written either way.
 */
public enum LockTokens {
    /**
     * The release commits the token: one durable write, so one log flush (fsync) per pessimistic
     * cycle where the database flushes every commit. Released holds' tokens increase per key whatever
     * the clock does; a hold whose session ended before its release (a crash, a failover) never
     * committed its token, and the next one rests on the clock. Where the clock read after a token is
     * below it (a step back), the token is raised as for {@link #CLOCK}, since lock stores of either
     * setting may share a table: a store on written tokens then passes the tokens that stores on clock
     * tokens used and rolled back (except on MySQL's native path, which does not read the clock again).
     */
    WRITTEN,
    /**
     * The release rolls the lock's transaction back, so the cycle writes nothing that must reach
     * the disk: the token in use is the clock's reading. Tokens keep increasing per key as long as
     * the database's clock does not step back. The token is committed after all where a step back
     * shows (the clock read after the token was below it: the token, the row's plus one, is then
     * raised by a second, past every token rolled back since the row's commit), on a release that
     * keeps the key taken ({@code holdAtLeast}), and on a key's first release in a lock store and then
     * at least once a second of its use there, so that the row's committed token trails the tokens in
     * use by a second at most. A clock reading that lands above the committed token but at or below
     * one already used (a step back into the last second of the key's use) is not caught, and can
     * repeat a token. Releases commit anyway on MySQL's native path (its statements read their clock
     * before the row lock), on the native path of a MariaDB started with {@code --sysdate-is-now} (for
     * the same reason: found at start-up and logged), on H2's native path (a forced release there could
     * end the next work of a hold's session that its rollback lent on), on a Galera node, and on a JTA
     * unit's JPA path. Choose it where the database's clock is disciplined (NTP slewing, not stepping), for keys locked pessimistically
     * only, whose cycles are frequent enough for their commits' flushes to matter.
     */
    CLOCK;

    /** The configuration key. */
    public static final String KEY = "locked.tokens";

    /**
     * @param value a configured value of {@link #KEY}, in any case
     * @return the constant
     * @throws IllegalArgumentException naming the key and the values allowed
     */
    public static LockTokens parse(String value) {
        for (LockTokens tokens : values()) {
            if (tokens.name().equalsIgnoreCase(value.trim())) {
                return tokens;
            }
        }
        throw new IllegalArgumentException(KEY + " must be written or clock, was '" + value + "'");
    }
}
