package io.locked.internal.definition;

import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockType;
import io.locked.api.OnTimeout;
import io.locked.internal.key.KeyTemplate;
import java.time.Duration;

/**
 * A {@code @Locked} method's settings after config overrides: resolved once per method, read on every call.
 *
 * @param method     {@code com.acme.Jobs#nightly()}, for messages
 * @param key        the compiled key template
 * @param mode       the lock mode
 * @param maxWait    how long to wait
 * @param lease      the optimistic lease
 * @param holdAtLeast how long after the acquisition the key stays taken; zero: freed at release
 * @param lockDelay  how long past an abandoned lease the key stays taken; zero: none
 * @param permits    how many holders of a key at once: 0 for the exclusive lock, else that many permits
 * @param type       exclusive, or a reader or the writer of the key's read/write lock
 * @param onTimeout  what to do when the wait runs out
 * @param enabled    false: the method runs without a lock
 * @param returnKind how the method returns, which decides skipping and async holding
 */
public record LockedSettings(String method, KeyTemplate key, LockMode mode, Duration maxWait, Duration lease,
                             Duration holdAtLeast, Duration lockDelay, int permits, LockType type, OnTimeout onTimeout, boolean enabled,
                             ReturnKind returnKind) {

    /**
     * @param reason why the lock was not acquired
     * @return whether the call is skipped rather than failed: {@code SKIP_ANY} always, {@code SKIP} when
     *         another holder has the key (no free connection is not a held key)
     */
    public boolean skips(LockNotAcquiredException.Reason reason) {
        return onTimeout == OnTimeout.SKIP_ANY || onTimeout == OnTimeout.SKIP && reason == LockNotAcquiredException.Reason.HELD;
    }
}
