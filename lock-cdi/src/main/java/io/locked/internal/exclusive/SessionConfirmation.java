package io.locked.internal.exclusive;



/**
 * Confirms, for readers leaving a {@code PESSIMISTIC} group while others stay, that the group's slot still
 * holds its row lock: a database session that ended (killed, failed over, timed out) frees the row lock at
 * once, and a reader must learn of it at its release at the latest, as an exclusive holder learns it from
 * its commit. Each leaving reader waits for a check that began after it began to leave; readers leaving
 * together share one.
 */
public final class SessionConfirmation {
    private final Acquisition slot;
    /** Checks begun, and the number of the last one that ended with its answer; guarded by this. */
    private long begun;
    private long ended;
    private boolean running;
    private boolean alive = true;

    public SessionConfirmation(Acquisition slot) {
        this.slot = slot;
    }

    /** @return whether the slot's session was alive at a check that began after this call began */
    public boolean confirm() {
        long needed;
        long mine;
        boolean interrupted = false;
        synchronized (this) {
            needed = begun + 1;
            while (true) {
                if (ended >= needed || !alive) {
                    restoreInterrupt(interrupted);
                    return alive;
                }
                if (!running) {
                    running = true;
                    mine = ++begun;
                    break;
                }
                try {
                    wait();
                } catch (InterruptedException e) {
                    interrupted = true; // a release is not given up halfway: the answer comes within the check's bound
                }
            }
        }
        boolean answer = false;
        try {
            answer = slot.confirmHeld();
        } finally {
            synchronized (this) {
                running = false;
                ended = mine;
                alive &= answer;
                notifyAll();
            }
            restoreInterrupt(interrupted);
        }
        return answer;
    }

    private static void restoreInterrupt(boolean interrupted) {
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
