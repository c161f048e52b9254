package io.locked.jpa.internal.transaction;

import io.locked.jpa.LockTokens;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.logging.Logger;

/**
 * Whether a pessimistic hold's release commits its token or rolls it back ({@link LockTokens}).
 * With written tokens every release commits. With clock tokens a release commits only where the
 * token must be kept: where the clock read after it was drawn was below it (a rollback would hand
 * the same token out again), and where this JVM has not committed a token of the key for
 * {@link #WRITE_PERIOD}, so that the row's committed token trails every token in use, in any JVM,
 * by less than that. So a token drawn behind the clock is raised by that much
 * ({@link #behindClock}) before it is used: above the row's committed token plus one, it passes
 * every token rolled back since that commit.
 *
 * <p>The keys' last committed tokens are kept in a fixed table indexed by the key's hash: a key
 * whose slot another key took counts as never committed, which only makes it commit again. Thread-safe.
 */
public final class TokenWrites {
    /** How long the row's committed token may trail the tokens in use, in this JVM. */
    public static final Duration WRITE_PERIOD = Duration.ofSeconds(1);
    private static final long WRITE_PERIOD_MICROS = WRITE_PERIOD.toNanos() / 1000;
    private static final int SLOTS = 4096;
    private static final TokenWrites ALWAYS = new TokenWrites(false);
    private static final Logger LOG = Logger.getLogger(TokenWrites.class.getName());

    private final boolean clock;
    private final AtomicReferenceArray<Committed> committed;
    private final AtomicBoolean warned = new AtomicBoolean();

    private TokenWrites(boolean clock) {
        this.clock = clock;
        this.committed = clock ? new AtomicReferenceArray<>(SLOTS) : null;
    }

    /** @return the policy of a repository, one per repository (its table of committed tokens is its own) */
    public static TokenWrites of(LockTokens tokens) {
        return tokens == LockTokens.CLOCK ? new TokenWrites(true) : ALWAYS;
    }

    /** @return the policy of written tokens: every release commits */
    public static TokenWrites written() {
        return ALWAYS;
    }

    /** @return whether releases may roll back (clock tokens) */
    public boolean clockTokens() {
        return clock;
    }

    /**
     * @param key         the held key
     * @param token       the hold's token
     * @param clockBehind whether the clock read after the token was drawn was below it
     * @return whether the release must commit the token rather than roll it back
     */
    public boolean mustCommit(String key, long token, boolean clockBehind) {
        if (!clock || clockBehind) {
            return true;
        }
        Committed last = committed.get(slot(key));
        return last == null || !last.key.equals(key) || token - last.token >= WRITE_PERIOD_MICROS;
    }

    /**
     * A token drawn while the clock was behind the row's committed token is that token plus one, which
     * may be below a token rolled back since that commit: it is raised past them, unless the row's
     * token is the one this store committed last for the key, itself drawn behind the clock (while the
     * clock is behind, every release commits: nothing was rolled back since).
     *
     * @param drawn a token drawn while the clock was behind the row's committed token: that token plus one
     * @return the token to use and commit instead: with clock tokens, raised past every token that may
     *         have been rolled back since the row's commit; with written tokens, the same
     */
    public long behindClock(String key, long drawn) {
        if (!clock) {
            return drawn;
        }
        Committed last = committed.get(slot(key));
        if (last != null && last.behind && last.token == drawn - 1 && last.key.equals(key)) {
            return drawn;
        }
        if (!warned.getAndSet(true)) {
            LOG.warning(() -> "The database clock is behind the committed token of '" + key + "' (it stepped back, or"
                    + " a restart or failover reached a server whose clock is behind): with locked.tokens=clock each"
                    + " acquisition of such a key commits a token raised by " + WRITE_PERIOD + " until the clock"
                    + " passes it. Said once per lock store");
        }
        return drawn + WRITE_PERIOD_MICROS;
    }

    /**
     * Records a committed token, after its commit succeeded.
     *
     * @param behind whether it was drawn while the clock was behind the row's committed token
     */
    public void committed(String key, long token, boolean behind) {
        if (clock) {
            committed.set(slot(key), new Committed(key, token, behind));
        }
    }

    private static int slot(String key) {
        return (key.hashCode() & Integer.MAX_VALUE) % SLOTS;
    }

    private record Committed(String key, long token, boolean behind) {
    }
}
