package io.locked.internal.cdi;

import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.event.LockLost;
import io.locked.api.event.LockReleased;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Ends the hold of a {@code @Locked} call and tells its observers how it ended. */
final class LockedRelease {
    private static final Logger LOG = Logger.getLogger(LockedRelease.class.getName());

    private LockedRelease() {
    }

    /**
     * @param acquired {@link System#nanoTime()} when the hold began
     * @throws LockLostException if the lock was lost while held
     */
    static void release(LockEvents events, LockHandle handle, long acquired) {
        try {
            handle.close();
        } catch (LockLostException lost) {
            afterTheMethod(() -> events.lost(new LockLost(handle.key(), handle.mode(), handle.token(), lost.getMessage())));
            throw lost;
        }
        afterTheMethod(() -> events.released(new LockReleased(handle.key(), handle.mode(), handle.token(),
                Duration.ofNanos(System.nanoTime() - acquired))));
    }

    /** Releases after the method failed: the method's failure wins, and carries a failed release as suppressed. */
    static void releaseAfterFailure(LockEvents events, LockHandle handle, long acquired, Throwable failure) {
        try {
            release(events, handle, acquired);
        } catch (LockException releaseFailure) {
            failure.addSuppressed(releaseFailure);
        }
    }

    /**
     * Tells the observers of a lock a method held, after its release. The application may have stopped
     * meanwhile: its drain lets a running holder finish, and the release is what ends the drain, so the
     * application's contexts may be gone by the time the event would go out (Weld: "not valid after
     * container shutdown"). Nobody is left to tell then, and the method's outcome must not change for it
     * (DrainReentryTest saw the finished job's call fail).
     */
    private static void afterTheMethod(Runnable tell) {
        try {
            tell.run();
        } catch (IllegalStateException applicationStopped) {
            LOG.log(Level.FINE, "A lock event found the application stopped", applicationStopped);
        }
    }
}
