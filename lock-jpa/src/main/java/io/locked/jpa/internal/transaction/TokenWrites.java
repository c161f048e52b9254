package io.locked.jpa.internal.transaction;

import io.locked.jpa.LockTokens;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * Whether a pessimistic hold's release commits its token or rolls it back ({@link LockTokens}), and
 * how a token drawn while the database clock is behind the row's committed token is raised. With
 * written tokens every release commits. With clock tokens a release commits only where the token
 * must be kept: where the clock read after it was drawn was below it (a rollback would hand the same
 * token out again), and where this JVM has not committed a token of the key for
 * {@link #WRITE_PERIOD}, so that the row's committed token trails every token in use, in any JVM, by
 * less than that.
 *
 * <p>So a token drawn behind the clock (the row's token plus one) may be below a token that a JVM on
 * clock tokens used and rolled back since the row's commit, and is raised by that much
 * ({@link #behindClock}) before it is used: by every lock store, whatever its own setting, since JVMs
 * of either setting may share a table. A raise is needed once per step back: once it is committed, no
 * token above it can have been rolled back while the clock stays behind it (every release commits
 * then). A store knows only its own commits: it skips the raise where its own last commit was drawn
 * behind the clock and the row has not passed below it since, as long as the clock, running true,
 * could not have reached that token yet. A store that raised while others raised too keeps the tokens
 * at most a raise ahead of the clock per JVM, and they meet the clock as it runs on.
 *
 * <p>The keys' last commits are kept in fixed tables indexed by the key's hash: a key whose slot another
 * key took counts as never committed, which only makes it commit, or raise, again. Thread-safe.
 */
public final class TokenWrites {
    /** How long the row's committed token may trail the tokens in use, in this JVM. */
    public static final Duration WRITE_PERIOD = Duration.ofSeconds(1);
    private static final long WRITE_PERIOD_MICROS = WRITE_PERIOD.toNanos() / 1000;
    private static final int SLOTS = 4096;
    private static final Logger LOG = Logger.getLogger(TokenWrites.class.getName());

    private final boolean clock;
    private final Memory memory;
    /** This policy with every release committing, sharing its memory: for a hold that must commit. */
    private final TokenWrites everyRelease;

    /** What a lock store remembers of its keys' tokens; shared by its policies. */
    private static final class Memory {
        final AtomicReferenceArray<Committed> committed = new AtomicReferenceArray<>(SLOTS);
        final AtomicReferenceArray<Drawn> drawnBehind = new AtomicReferenceArray<>(SLOTS);
        final AtomicBoolean warned = new AtomicBoolean();
        final LongSupplier nanoTime;

        Memory(LongSupplier nanoTime) {
            this.nanoTime = nanoTime;
        }
    }

    private TokenWrites(boolean clock, Memory memory) {
        this.clock = clock;
        this.memory = memory;
        this.everyRelease = clock ? new TokenWrites(false, memory) : this;
    }

    /** @return the policy of a repository, one per repository (its memory of tokens is its own) */
    public static TokenWrites of(LockTokens tokens) {
        return of(tokens, System::nanoTime);
    }

    /** As {@link #of(LockTokens)}, on a monotonic clock of the caller's (a test's). */
    static TokenWrites of(LockTokens tokens, LongSupplier nanoTime) {
        return new TokenWrites(tokens == LockTokens.CLOCK, new Memory(nanoTime));
    }

    /** @return this policy for a hold whose release must commit whatever the setting (a Galera node's) */
    public TokenWrites committingEveryRelease() {
        return everyRelease;
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
        Committed last = memory.committed.get(slot(key));
        return last == null || !last.key.equals(key) || token - last.token >= WRITE_PERIOD_MICROS;
    }

    /**
     * A token drawn while the clock was behind the row's committed token is that token plus one, which
     * may be below a token a clock-token JVM rolled back since that commit: it is raised past them,
     * unless this store's own last commit of the key was drawn behind the clock too, the row's token
     * has not gone below it, and neither the clock read now nor the clock running true since can have
     * passed it (see the class comment).
     *
     * @param drawn       a token drawn while the clock was behind the row's committed token: that token plus one
     * @param clockMicros the clock read after it was drawn, below it
     * @return the token to use and commit instead
     */
    public long behindClock(String key, long drawn, long clockMicros) {
        int slot = slot(key);
        Committed last = memory.committed.get(slot);
        long rowToken = drawn - 1;
        boolean raise = last == null || !last.key.equals(key) || !last.behind || !(rowToken == last.token
                || rowToken > last.token && clockMicros < last.token && memory.nanoTime.getAsLong() - last.clockPassesAt < 0);
        long token = raise ? drawn + WRITE_PERIOD_MICROS : drawn;
        // when the clock, running true, passes this token: a later draw behind it must raise again
        memory.drawnBehind.set(slot, new Drawn(key, token, memory.nanoTime.getAsLong() + (token - clockMicros) * 1000));
        if (raise && !memory.warned.getAndSet(true)) {
            LOG.warning(() -> "The database clock is behind the committed token of '" + key + "' (it stepped back, or"
                    + " a restart or failover reached a server whose clock is behind): each acquisition of such a key"
                    + " commits its token, raised by " + WRITE_PERIOD + " past tokens that stores on "
                    + LockTokens.KEY + "=clock may have rolled back, until the clock passes it. Said once per lock store");
        }
        return token;
    }

    /**
     * Records a committed token, after its commit succeeded.
     *
     * @param behind whether it was drawn while the clock was behind the row's committed token
     */
    public void committed(String key, long token, boolean behind) {
        int slot = slot(key);
        Drawn drawn = memory.drawnBehind.get(slot);
        long clockPassesAt = behind && drawn != null && drawn.key.equals(key) && drawn.token == token
                ? drawn.clockPassesAt : memory.nanoTime.getAsLong();
        memory.committed.set(slot, new Committed(key, token, behind, clockPassesAt));
    }

    private static int slot(String key) {
        return (key.hashCode() & Integer.MAX_VALUE) % SLOTS;
    }

    /**
     * @param clockPassesAt for a token drawn behind the clock, when (on this JVM's monotonic clock) the
     *                      database clock, running true, passes it
     */
    private record Committed(String key, long token, boolean behind, long clockPassesAt) {
    }

    /** A token drawn behind the clock, not yet committed. */
    private record Drawn(String key, long token, long clockPassesAt) {
    }
}
