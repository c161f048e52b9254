package io.locked.internal;

import io.locked.api.LockHandle;
import io.locked.api.LockInterruptedException;
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
            long remaining = deadline - time.nanoTime();
            if (remaining <= 0) {
                return null;
            }
            try {
                time.sleepNanos(backoff.nextPauseNanos(remaining));
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                throw new LockInterruptedException(request.key(), interrupted);
            }
        }
    }

    /**
     * @param checkedKey a lock key or a permit's slot key, checked
     * @return the lock key: the slot key's key, else the key itself
     */
    static String baseKey(String checkedKey) {
        int mark = checkedKey.lastIndexOf(LockRequest.PERMIT_SLOT_MARK);
        return mark < 0 ? checkedKey : checkedKey.substring(0, mark);
    }

    /**
     * @param slotKey a permit's slot key, checked
     * @return its slot number
     */
    static int slotNumber(String slotKey) {
        return Integer.parseInt(slotKey.substring(slotKey.lastIndexOf(LockRequest.PERMIT_SLOT_MARK) + 1));
    }

    /**
     * @param key a key as operators pass it: a lock key, or a permit's slot key
     * @return the key, checked
     * @throws IllegalArgumentException for a bad key, or a slot key whose number is not 1 to
     *                                  {@link LockRequest#MAX_PERMITS}
     */
    static String checkedKey(String key) {
        int mark = key == null ? -1 : key.lastIndexOf(LockRequest.PERMIT_SLOT_MARK);
        if (mark < 0) {
            return LockRequest.of(key).key();
        }
        String base = key.substring(0, mark);
        int slot;
        try {
            slot = Integer.parseInt(key.substring(mark + 1));
        } catch (NumberFormatException notANumber) {
            slot = 0;
        }
        if (slot < 1 || slot > LockRequest.MAX_PERMITS || !key.equals(LockRequest.permitSlotKey(base, slot))) {
            throw new IllegalArgumentException("Lock key must not contain U+001F except before a permit's slot number"
                    + " (1 to " + LockRequest.MAX_PERMITS + "), was '" + key + "'");
        }
        LockRequest.of(base).permits(slot);
        return key;
    }
}
