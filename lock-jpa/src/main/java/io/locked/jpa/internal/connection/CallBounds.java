package io.locked.jpa.internal.connection;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * How long one store call may take: until when it may wait for a pooled connection, until when for
 * a row lock, and how long each of its statements may go without an answer (the connection's
 * network timeout). A statement that hangs (a row lock held elsewhere, a dead network, a server
 * that stopped) then fails in time instead of holding its caller, and the watchdog, forever.
 *
 * @param borrowDeadlineNanos until when, on {@link System#nanoTime()}, a connection may be waited for
 * @param waitDeadlineNanos   until when the call's statements may wait for a row lock
 * @param statementMillis     the network timeout of the call's statements, positive
 * @param borrowWait          how long the call could wait for a connection, for messages
 * @param endNanos            until when a statement of the call may go without an answer: its
 *                            start plus the network timeout, which a second try does not restart
 */
public record CallBounds(long borrowDeadlineNanos, long waitDeadlineNanos, int statementMillis, Duration borrowWait,
                         long endNanos) {
    /**
     * What a healthy statement may take beyond the lock wait it was given: a commit's fsync, a busy
     * server or client. Only a statement that hangs reaches it.
     */
    public static final Duration STATEMENT_ALLOWANCE = Duration.ofSeconds(2);
    /**
     * The longest one statement waits for a row lock. Databases bound the setting (PostgreSQL's
     * {@code lock_timeout} refuses more than 2^31-1 ms, about 24.9 days), so a longer wait is made of
     * several statements: the lock manager asks again while the caller's wait lasts. Drivers bound a
     * statement's timeout too (Connector/J counts it in int milliseconds).
     */
    static final long LONGEST_STATEMENT_LOCK_WAIT_MILLIS = Duration.ofDays(1).toMillis();

    /** Cleanup scans and the schema script may read many rows. */
    private static final Duration MAINTENANCE = Duration.ofSeconds(30);

    /**
     * An acquisition: it waits for a connection for the caller's wait or the connection wait,
     * whichever is longer, so that a wait of zero still gets a connection a neighbour gives back a
     * moment later; its statements wait for a row lock within the caller's wait only, and answer
     * within it and the allowance. A call made late in the wait ends by the wait's end plus the
     * connection wait at most: the connection wait adds to the caller's wait once, however often
     * the caller asks within it.
     */
    public static CallBounds forWait(Duration wait, Duration connectionWait) {
        long now = System.nanoTime();
        Duration borrow = wait.compareTo(connectionWait) >= 0 ? wait : connectionWait;
        Duration longestLockWait = Duration.ofMillis(Math.min(LONGEST_STATEMENT_LOCK_WAIT_MILLIS, wait.toMillis()));
        int statement = millis(longestLockWait.plus(STATEMENT_ALLOWANCE));
        return new CallBounds(now + borrow.toNanos(), now + wait.toNanos(), statement, borrow,
                now + TimeUnit.MILLISECONDS.toNanos(statement));
    }

    /**
     * A renewal: a third of the lease, when the next renewal is due anyway, and at least the allowance.
     */
    public static CallBounds forRenewal(Duration lease) {
        return forRenewal(lease, Duration.ZERO);
    }

    /**
     * A renewal whose statements the server ends up to {@code serverLateness} after the bound they were
     * given ({@link #serverMillis}): a third of the lease, and at least the allowance plus that lateness.
     */
    public static CallBounds forRenewal(Duration lease, Duration serverLateness) {
        Duration least = STATEMENT_ALLOWANCE.plus(serverLateness);
        return within(lease.dividedBy(3).compareTo(least) > 0 ? lease.dividedBy(3) : least);
    }

    /** A release, a commit, a hand-over: no wait of their own, the allowance only. */
    public static CallBounds brief() {
        return within(STATEMENT_ALLOWANCE);
    }

    /** A check that must answer within its own bound, for the connection and the statement together. */
    public static CallBounds within(Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        return new CallBounds(deadline, deadline, millis(bound), bound, deadline);
    }

    /**
     * A readiness check: the statement within the whole bound, the connection within half of it, so
     * that a pool that cannot open one (a database refusing connections) says why before the check
     * gives up, while a database that hangs is still reported as not answering.
     */
    public static CallBounds readiness(Duration bound) {
        long now = System.nanoTime();
        Duration borrow = bound.dividedBy(2);
        return new CallBounds(now + borrow.toNanos(), now + bound.toNanos(), millis(bound), borrow, now + bound.toNanos());
    }

    /** Cleanup and schema creation. */
    public static CallBounds maintenance() {
        return within(MAINTENANCE);
    }

    /**
     * @param serverLateness how much later than the bound it was given the server may end a statement
     * @return how long one of the call's statements may run on the server: half its network timeout
     *         (less that lateness), so that a server that ends it (its lock wait ran out) answers before
     *         the client gives up, and no statement goes on after its client gave up on it
     */
    public long serverMillis(Duration serverLateness) {
        return Math.max(1, (statementMillis - serverLateness.toMillis()) / 2);
    }

    /**
     * The bounds of a second try of the call, after its first failed that way on a session that was
     * gone: what is left of these, or none. None after a timeout (the server did not answer within
     * the statement's bound, and would not answer a second statement sooner), nor once the time for a
     * connection is up: the borrow would still check an idle connection, which against a server that
     * stopped answering takes the pool's own validation timeout (HikariCP's: 5 s).
     *
     * @return the bounds of the second try, or null if there is to be none
     */
    public CallBounds forSecondTry(SQLException failure) {
        long now = System.nanoTime();
        long statementLeft = TimeUnit.NANOSECONDS.toMillis(endNanos - now);
        if (LockConflicts.isTimeout(failure) || borrowDeadlineNanos - now <= 0 || statementLeft <= 0) {
            return null;
        }
        return new CallBounds(borrowDeadlineNanos, waitDeadlineNanos, (int) Math.min(statementMillis, statementLeft),
                borrowWait, endNanos);
    }

    /** @return how long a connection may still be waited for, never negative */
    public long borrowNanos() {
        return Math.max(0, borrowDeadlineNanos - System.nanoTime());
    }

    /** @return what is left of an acquisition's wait, for its statement's lock wait, at most a day */
    public long remainingWaitMillis() {
        return Math.min(LONGEST_STATEMENT_LOCK_WAIT_MILLIS, Math.max(0, waitDeadlineNanos - System.nanoTime()) / 1_000_000);
    }

    private static int millis(Duration duration) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, duration.toMillis()));
    }
}
