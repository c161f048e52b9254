package io.locked.internal.exclusive;

import io.locked.api.LockHandle;

/** A view of the lock a thread is inside of, for fenced writes: it owns no hold, so closing it does nothing. */
public final class CurrentLock extends AcquisitionView {

    public CurrentLock(Acquisition acquisition) {
        super(acquisition);
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
}
