package io.locked.internal.exclusive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.locked.api.LockHandle;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.internal.base.LockMeter;
import io.locked.internal.base.TimeSource;
import io.locked.internal.lease.LeaseWatchdog;
import io.locked.testing.InMemoryLockRepository;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One lock manager's exclusive locks as the manager runs them ({@link ExclusiveLocks}: reentrancy, the
 * JVM-local queue of each row, the store, the {@link Draining} of holds at close) over an in-memory store,
 * for model checking what is built on them: permits ({@code PermitsModelTest}) and the drain
 * ({@code DrainModelTest}).
 *
 * <p>Every hold here is {@code PESSIMISTIC}: an optimistic one needs a running lease watchdog, whose threads
 * would run beside the model's, where Lincheck must see every thread. The watchdog given is closed before
 * any scenario ({@link #closedWatchdog()}), so a pessimistic hold schedules no session checks. Time stands
 * still: a try ({@code maxWait} zero) is one look, and a pause between tries ends as the scenario's
 * {@link Pause} says.
 */
public final class ModelLocks {
    /** A clock that never moves, and a wall clock that never asks the system. */
    private static final Clock EPOCH = Clock.fixed(Instant.EPOCH, ZoneOffset.UTC);

    /** How a waiter's pause between two rounds of tries ends in a scenario. */
    public interface Pause {
        void pause();
    }

    /** For scenarios where nobody pauses: every wait is a single try. */
    public static final Pause NO_PAUSE = () -> {
        throw new AssertionError("nobody pauses in this scenario");
    };

    public final InMemoryLockRepository repository = new InMemoryLockRepository(() -> 0);
    public final Draining draining;
    public final ThreadScopes scopes = new ThreadScopes();
    public final ExclusiveLocks locks;
    public final TimeSource time;
    /** The choices of each scenario thread, fixed by the order the threads were made in. */
    public final Choices choices = new Choices();

    public ModelLocks(LeaseWatchdog closedWatchdog, Pause pause) {
        this(closedWatchdog, pause, null);
    }

    ModelLocks(LeaseWatchdog closedWatchdog, Pause pause, ExclusiveSeededBug bug) {
        time = new TimeSource() {
            @Override
            public long nanoTime() {
                return 0;
            }

            @Override
            public Clock wallClock() {
                return EPOCH;
            }

            @Override
            public void sleepNanos(long nanos) {
                pause.pause();
            }

            // a run of hand-overs' bound, drawn at random in a JVM, as its least here: time stands still, so the
            // draw changes nothing but what Lincheck's replay of a failing interleaving would draw otherwise
            @Override
            public long spread(long origin, long bound) {
                return origin;
            }

            // where a search of slots starts, random in a JVM, is fixed here by the thread and its draws so far,
            // so that a replay draws what the failing interleaving drew: see choices
            @Override
            public int spread(int bound) {
                return choices.next(Thread.currentThread()) % bound;
            }
        };
        draining = new Draining(time);
        locks = new ExclusiveLocks(repository, time, closedWatchdog, Duration.ofSeconds(30), draining, bug);
    }

    /**
     * What a scenario thread draws where a JVM draws at random ({@link TimeSource#spread(int)}): a first draw
     * the scenario gives each thread by the order the threads were made in, then one more at each draw, so a
     * thread that draws again moves on. Fixed, where a random draw would make Lincheck's replay of a failing
     * interleaving go otherwise than the run that failed (and end in "GPMC trace is expected"). Threads the
     * scenario did not make known draw 0, 1, 2, ...
     */
    public static final class Choices {
        private final Map<Thread, Integer> nextChoice = new HashMap<>();

        /** Before the thread's first draw: its draws begin at {@code first}. */
        public synchronized void made(Thread thread, int first) {
            nextChoice.put(thread, first);
        }

        synchronized int next(Thread thread) {
            int choice = nextChoice.getOrDefault(thread, 0);
            nextChoice.put(thread, choice + 1);
            return choice;
        }
    }

    /**
     * A watchdog closed at once: to be made before a scenario, outside Lincheck (its scheduler starts a thread,
     * which the close ends).
     */
    public static LeaseWatchdog closedWatchdog() {
        LeaseWatchdog watchdog = new LeaseWatchdog(1, new InMemoryLockRepository(), ModelHolds.FROZEN);
        watchdog.close();
        // what the first hold initializes once (the holder text's host name, the owners' random source) is
        // initialized here, outside Lincheck, not inside a scenario's first interleaving
        new ModelLocks(watchdog, NO_PAUSE).acquire(LockRequest.of("warm-up").mode(LockMode.PESSIMISTIC)).close();
        return watchdog;
    }

    /** The exclusive lock of the request's key, as the manager acquires it, in the calling thread's scope. */
    public LockHandle acquire(LockRequest request) {
        return locks.acquire(request, request.key(), request.maxWait(), 0, scopes.ofCurrentThread(), LockMeter.NONE, true);
    }

    /** What permits take their slots through, for a request of the calling thread. */
    public RowAccess rows(LockRequest request) {
        return locks.rows(request, 0, scopes.ofCurrentThread(), LockMeter.NONE);
    }

    /** Everything given back: no row held in the store, no queue, no held acquisition, no thread inside. */
    public void assertNothingLeft(List<String> rowKeys) {
        for (String rowKey : rowKeys) {
            assertFalse(repository.holds(rowKey), "row " + rowKey + " left held");
        }
        assertEquals(0, locks.keysInUse(), "a row's queue outlived its users");
        assertEquals(0, draining.held(), "a hold left counted by the drain");
        assertEquals(0, scopes.threadsInside(), "a thread left inside a hold");
    }
}
