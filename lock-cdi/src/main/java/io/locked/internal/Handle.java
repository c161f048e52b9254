package io.locked.internal;

import io.locked.api.LockHandle;
import io.locked.api.LockMode;

/** One hold of an acquisition: the outermost or a reentrant one. Its state is guarded by the acquisition. */
final class Handle implements LockHandle {
    private final Acquisition acquisition;
    volatile boolean closed;
    boolean scoped = true;

    Handle(Acquisition acquisition) {
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

    @Override
    public String toString() {
        return "LockHandle[" + acquisition.key + ", " + acquisition.mode() + ", token " + acquisition.token + "]";
    }
}
