package io.locked.internal.exclusive;

import io.locked.api.HolderKind;
import io.locked.api.LockHandle;
import io.locked.api.LockMode;
import io.locked.api.event.LockRenewalFailed;
import java.util.function.Consumer;

/** What every handle on an acquisition shows of it: key, mode and token. */
public abstract class AcquisitionView implements LockHandle {
    public final Acquisition acquisition;

    AcquisitionView(Acquisition acquisition) {
        this.acquisition = acquisition;
    }

    /** @return the key of the row the acquisition holds: the lock key, or a slot's row ({@link io.locked.internal.base.RowKeys}) */
    public String rowKey() {
        return acquisition.key;
    }

    @Override
    public String key() {
        return acquisition.place.key();
    }

    @Override
    public HolderKind kind() {
        return acquisition.place.kind();
    }

    @Override
    public int slot() {
        return acquisition.place.slot();
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
    public LockHandle onRenewalFailure(Consumer<? super LockRenewalFailed> listener) {
        acquisition.onRenewalFailure(listener);
        return this;
    }

    @Override
    public String toString() {
        return "LockHandle[" + acquisition.place + ", " + acquisition.mode() + ", token " + acquisition.token + "]";
    }
}
