package io.locked.internal;

import io.locked.api.LockHandle;
import io.locked.api.LockRequest;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Permits of a key ({@link LockRequest#permits()}): each permit is the exclusive lock of a slot row of
 * its own, {@code key␟1} to {@code key␟N}, so a permit holder is a holder like any other, in both
 * modes and on every store: its lease or row lock, its token, its loss, inspection and forced release
 * are those of its slot. A waiter tries each slot once without waiting, from a random one on so that
 * waiters spread over the slots, and pauses with the standard backoff when every slot is taken.
 */
final class PermitSlots {
    /** One try of one slot, without waiting: the held permit, or null when the slot is taken. */
    interface SlotTry {
        LockHandle tryOnce(String slotKey);
    }

    private final TimeSource time;

    PermitSlots(TimeSource time) {
        this.time = time;
    }

    /**
     * @param request  the permits asked for
     * @param scope    the calling thread's scope: a thread inside a permit of the key re-enters it
     * @param deadline when the wait ends, on {@link TimeSource#nanoTime()}
     * @param slots    how a slot is tried
     * @return the permit held, or null when none came free within the wait
     */
    LockHandle acquire(LockRequest request, ThreadScope scope, long deadline, SlotTry slots) {
        int permits = request.permits();
        for (int slot = 1; slot <= permits; slot++) {
            String slotKey = LockRequest.permitSlotKey(request.key(), slot);
            if (scope.find(slotKey) != null) {
                LockHandle nested = slots.tryOnce(slotKey);
                if (nested != null) {
                    return nested;
                }
            }
        }
        Backoff backoff = Backoff.standard();
        int first = ThreadLocalRandom.current().nextInt(permits);
        while (true) {
            for (int i = 0; i < permits; i++) {
                LockHandle permit = slots.tryOnce(LockRequest.permitSlotKey(request.key(), (first + i) % permits + 1));
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
