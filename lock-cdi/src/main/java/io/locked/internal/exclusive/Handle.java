package io.locked.internal.exclusive;

import io.locked.api.LockHandle;

/** One hold of an acquisition: the outermost or a reentrant one. Its state is guarded by the acquisition. */
public final class Handle extends AcquisitionView {
    volatile boolean closed;
    boolean scoped = true;

    Handle(Acquisition acquisition) {
        super(acquisition);
    }

    @Override
    public boolean isValid() {
        return !closed && acquisition.isValid();
    }

    @Override
    public LockHandle handOver() {
        acquisition.handOver(this);
        return this;
    }

    @Override
    public void close() {
        acquisition.close(this);
    }
}
