package io.locked.internal.leadership;

import io.locked.api.Leadership;
import io.locked.api.LeadershipListener;
import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerClosedException;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.internal.base.Backoff;
import io.locked.internal.base.TimeSource;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One {@link Leadership}: a thread of its own that waits for the role's optimistic lock, and while it
 * holds it, watches the handle's validity often enough to tell a lost term soon. All the guarantees
 * are the lock's: the watchdog renews the lease, the handle turns invalid when a renewal did not
 * confirm it in time, and each term's token is the lock's fencing token.
 */
public final class Candidacy implements Leadership {
    private static final Logger LOG = Logger.getLogger(Candidacy.class.getName());
    /** The reason of the term a closed candidacy gives up. */
    private static final String CLOSED = "closed";
    private static final Duration FIRST_PAUSE_AFTER_A_FAILURE = Duration.ofMillis(100);
    private final LockManager locks;
    private final String role;
    private final LockRequest request;
    private final LeadershipListener listener;
    private final long checkNanos;
    /** Where the campaign waits and runs: the manager's; the simulation's, in virtual time. */
    private final TimeSource time;
    private volatile Thread thread;
    /** The manager's open candidacies, which this one joins at its start and leaves when closed. */
    private final Set<Candidacy> open;
    private volatile LockHandle term;
    private volatile boolean closed;
    /** The pauses after store failures, on the campaign's thread only: from 100 ms, doubling up to half a lease. */
    private Backoff failures;

    /** The bugs the simulation ({@code SimulationTest}) must find. */
    public enum SeededBug {
        /** The leader counts its term as long as the role row's lease: its check may tell it of the loss after the next term began. */
        NO_MARGIN
    }

    public Candidacy(LockManager locks, TimeSource time, String role, Duration lease, LeadershipListener listener,
                     Set<Candidacy> open) {
        this(locks, time, role, lease, listener, open, null);
    }

    public Candidacy(LockManager locks, TimeSource time, String role, Duration lease, LeadershipListener listener,
                     Set<Candidacy> open, SeededBug seededBug) {
        if (listener == null) {
            throw new IllegalArgumentException("The leadership listener must not be null for role '" + role + "'");
        }
        // a tenth of the lease, between 10 ms and 1 s: how late a lost term may be told
        this.checkNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(10), Math.min(TimeUnit.SECONDS.toNanos(1),
                lease.toNanos() / 10));
        // the request checks role (as a key) and lease; a candidate waits up to half a lease per attempt
        this.request = seededBug == SeededBug.NO_MARGIN ? termRequest(role, lease, 0) : termRequest(role, lease, checkNanos);
        this.locks = locks;
        this.time = time;
        this.role = role;
        this.listener = listener;
        this.open = open;
        this.failures = newFailureBackoff();
    }

    /**
     * The role's lock: stored for the whole lease, so that a killed leader is replaced once it has run out,
     * but counted by the leader two checks shorter, the rest as a lock-delay. A leader that stops renewing
     * (cut off, the store down) then sees its term end, and its check tells the listener, while the store
     * still keeps the role from everyone else: the old leader hears of its loss before a new term can begin,
     * also after an outage that outlasted the lease. Without the margin the two ends fall together, and
     * another candidate could begin its term up to a check before the old leader was told.
     */
    private static LockRequest termRequest(String role, Duration lease, long checkNanos) {
        LockRequest request = LockRequest.of(role).mode(LockMode.OPTIMISTIC).lease(lease).maxWait(lease.dividedBy(2))
                .name("leadership");
        Duration margin = Duration.ofNanos(Math.min(2 * checkNanos, lease.toNanos() / 5));
        if (lease.minus(margin).compareTo(Duration.ofMillis(1)) < 0) {
            return request; // a lease of a few milliseconds: no margin to spare
        }
        return request.lease(lease.minus(margin)).lockDelay(margin);
    }

    public Candidacy start() {
        open.add(this);
        thread = time.startThread("locked-leadership-" + role, this::campaign);
        return this;
    }

    @Override
    public String role() {
        return role;
    }

    @Override
    public boolean isLeader() {
        LockHandle current = term;
        return current != null && current.isValid();
    }

    @Override
    public OptionalLong term() {
        LockHandle current = term;
        return current != null && current.isValid() ? OptionalLong.of(current.token()) : OptionalLong.empty();
    }

    private void campaign() {
        while (!closed) {
            LockHandle current = term;
            if (current == null) {
                compete();
            } else if (!current.isValid()) {
                endTerm(current, "its lease ran out before a renewal confirmed it (the JVM paused, or lost the database)");
            } else {
                time.parkNanos(this, checkNanos);
            }
        }
        // close() interrupted this thread to wake it; the release must not see that interrupt: a pool
        // such as WildFly's refuses an interrupted thread a connection, and the role would wait for its lease
        Thread.interrupted();
        LockHandle last = term;
        if (last != null) {
            endTerm(last, CLOSED);
        }
    }

    private Backoff newFailureBackoff() {
        return Backoff.from(FIRST_PAUSE_AFTER_A_FAILURE, request.maxWait());
    }

    private void compete() {
        LockHandle won;
        try {
            won = locks.acquire(request);
        } catch (LockNotAcquiredException held) {
            return; // another JVM leads: ask again
        } catch (LockManagerClosedException managerClosed) {
            closed = true;
            return;
        } catch (LockException storeFailed) {
            // a brief failure (a statement that timed out on a loaded machine) costs a brief pause, and a
            // store that stays down is asked at most every half a lease: the pause doubles up to that
            LOG.log(Level.FINE, "Campaign for '" + role + "' failed; trying again", storeFailed);
            time.parkNanos(this, failures.nextPauseNanos(Long.MAX_VALUE, time));
            return;
        } catch (RuntimeException unexpected) {
            // any other failure (the lock store's producer failing its first call, in CI: another Weld
            // container's CDI.current()) must not end the campaign thread: the role would stay without
            // this candidate until the application restarts
            LOG.log(Level.WARNING, "Campaign for '" + role + "' failed; trying again", unexpected);
            time.parkNanos(this, failures.nextPauseNanos(Long.MAX_VALUE, time));
            return;
        }
        failures = newFailureBackoff();
        if (!won.isValid()) {
            // its lease ran out before this thread could tell (the JVM paused since the acquisition): another
            // candidate may lead by now, so this term is never told granted, nor lost
            releaseQuietly(won);
            return;
        }
        term = won;
        tell(() -> listener.granted(this, won.token()), "granted");
    }

    // The listener is told before the release: a store that cannot be reached holds a release up for
    // its whole connection wait, and the leader's work must stop when isLeader() turned false, not
    // seconds later; at close, the work stops before the next leader can begin.
    private void endTerm(LockHandle ended, String reason) {
        term = null;
        tell(() -> listener.lost(this, ended.token(), reason), "lost");
        try {
            ended.close();
        } catch (LockException releaseFailed) {
            if (reason.equals(CLOSED)) {
                LOG.log(Level.WARNING, "Could not give up the role '" + role + "' at close: the next leader"
                        + " waits until its lease has run out", releaseFailed);
            }
            // else the term had ended already: what the listener was told
        }
    }

    private static void releaseQuietly(LockHandle over) {
        try {
            over.close();
        } catch (LockException alreadyLost) {
            // the lease had run out: nothing to give up
        }
    }

    private void tell(Runnable call, String what) {
        try {
            call.run();
        } catch (RuntimeException listenerFailed) {
            LOG.log(Level.WARNING, "The leadership listener of '" + role + "' failed on " + what, listenerFailed);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        open.remove(this);
        thread.interrupt();
        if (Thread.currentThread() != thread) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
