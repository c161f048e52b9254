package io.locked.internal;

import io.locked.api.LockHandle;
import io.locked.api.LockMode;

/** What every handle on an acquisition shows of it: key, mode and token. */
abstract class AcquisitionView implements LockHandle {
    final Acquisition acquisition;

    AcquisitionView(Acquisition acquisition) {
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
    public String toString() {
        return "LockHandle[" + acquisition.key + ", " + acquisition.mode() + ", token " + acquisition.token + "]";
    }
}
