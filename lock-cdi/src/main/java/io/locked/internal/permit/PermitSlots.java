package io.locked.internal.permit;

import io.locked.api.LockHandle;
import io.locked.api.LockRequest;
import io.locked.internal.base.Backoff;
import io.locked.internal.base.TimeSource;
import io.locked.internal.exclusive.RowAccess;
import io.locked.internal.exclusive.ThreadScope;
import io.locked.spi.LockRows;
import java.time.Duration;

/**
 * Permits of a key ({@link LockRequest#permits()}): each permit is the exclusive lock of a slot row of
 * its own, {@code key␟1} to {@code key␟N}, so a permit holder is a holder like any other, in both
 * modes and on every store: its lease or row lock, its token, its loss, inspection and forced release
 * are those of its slot. A waiter tries each slot once without waiting, from a random one on so that
 * waiters spread over the slots, and pauses with the standard backoff when every slot is taken.
 */
public final class PermitSlots {
    private final TimeSource time;
    /** A bug seeded for the model checking's negative controls only (PermitsModelTest); null everywhere else. */
    private final SeededBug seededBug;

    /**
     * The bugs the model checking must find: {@code NO_WRAP} counts the slots on from the random first one
     * without wrapping round to the first slot, so past the last; {@code NO_REENTRY} lets a thread inside a
     * permit of the key look for a free slot before its own, so that it may take a second permit.
     */
    enum SeededBug { NO_WRAP, NO_REENTRY }

    public PermitSlots(TimeSource time) {
        this(time, null);
    }

    /** @param seededBug the bug a negative control seeds, or null */
    PermitSlots(TimeSource time, SeededBug seededBug) {
        this.time = time;
        this.seededBug = seededBug;
    }

    /**
     * @param request  the permits asked for
     * @param scope    the calling thread's scope: a thread inside a permit of the key re-enters it
     * @param deadline when the wait ends, on {@link TimeSource#nanoTime()}
     * @param rows     how a slot is taken
     * @return the permit held, or null when none came free within the wait
     */
    public LockHandle acquire(LockRequest request, ThreadScope scope, long deadline, RowAccess rows) {
        int permits = request.permits();
        for (int slot = 1; slot <= permits && seededBug != SeededBug.NO_REENTRY; slot++) {
            LockHandle nested = rows.reenter(scope, LockRows.permitSlot(request.key(), slot));
            if (nested != null) {
                return nested;
            }
        }
        Backoff backoff = Backoff.standard();
        int first = time.spread(permits);
        while (true) {
            for (int i = 0; i < permits; i++) {
                int slot = seededBug == SeededBug.NO_WRAP ? first + i + 1 : (first + i) % permits + 1;
                LockHandle permit = rows.take(LockRows.permitSlot(request.key(), slot), Duration.ZERO);
                if (permit != null) {
                    return permit;
                }
            }
            if (!backoff.pause(time, request.key(), deadline)) {
                return null;
            }
        }
    }
}
