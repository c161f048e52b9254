package io.locked.internal;

import io.locked.api.LockHandle;
import io.locked.api.LockMode;

/** A view of the lock a thread is inside of, for fenced writes: it owns no hold, so closing it does nothing. */
final class CurrentLock implements LockHandle {
    private final Acquisition acquisition;

    CurrentLock(Acquisition acquisition) {
        this.acquisition = acquisition;
    }

    @Override
    public String key() {
        return acquisition.key;
    }

    @Override
    public LockMode mode() {
        return acquisition.mode();
    }

    @Override
    public long token() {
        return acquisition.token;
    }

    @Override
    public boolean isValid() {
        return acquisition.isValid();
    }

    @Override
    public LockHandle handOver() {
        return this;
    }

    @Override
    public void close() {
        // the hold belongs to the code that acquired it
    }

    @Override
    public String toString() {
        return "current LockHandle[" + acquisition.key + ", " + acquisition.mode() + ", token " + acquisition.token + "]";
    }
}
