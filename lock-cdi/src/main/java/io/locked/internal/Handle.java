package io.locked.internal;

import io.locked.api.LockHandle;
import io.locked.api.LockMode;
import java.util.concurrent.atomic.AtomicBoolean;

/** One hold of an acquisition: the outermost or a reentrant one. */
final class Handle implements LockHandle {
    private final Acquisition acquisition;
    private final AtomicBoolean closed = new AtomicBoolean();

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
        return !closed.get() && acquisition.isValid();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            acquisition.exit();
        }
    }

    @Override
    public String toString() {
        return "LockHandle[" + acquisition.key + ", " + acquisition.mode() + ", token " + acquisition.token + "]";
    }
}
